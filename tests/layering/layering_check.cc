// layering_check: fails when a file includes a header of a layer (a target of this project) that
// the file's own target does not link, directly or through the layers it links.
//
//   layering_check <manifest> <source root>
//
// The manifest is written by CMake at configure time (cmake/LayeringManifest.cmake): one block
// per target of the project, with its folder, its sources and what it links. The check then
//  - gives every file under the root its owners: the targets that list it among their sources,
//    or else the targets of the deepest folder above it that defines any (a header belongs to
//    the folder it sits in);
//  - allows a file the targets its owners link, transitively, and its owners themselves;
//  - reads every `#include "..."` that names a file of the tree (relative to the root, or to the
//    including file), and reports it when none of that file's owners is allowed.
// Includes of files outside the tree (the standard library, Abseil, generated protobuf headers)
// are not checked: a target can only use those through what it links, and the build says so.
//
// Exit status: 0 when every include follows the links, 1 when any does not (each reported as
// "<file>:<line>: ..."), 2 when the manifest cannot be read.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace fs = std::filesystem;

namespace {

struct Target {
  std::string name;
  std::string dir;                   // relative to the root; "" for the root itself
  std::vector<std::string> links;    // raw entries: may hold generator expressions
  std::vector<std::string> sources;  // raw entries, as the target lists them
};

// Relative path of `path` below `root`, or nullopt-like "" with ok=false when outside it.
bool RelativeToRoot(const fs::path& root, const fs::path& path, std::string* relative) {
  const fs::path normal = path.lexically_normal();
  const fs::path rel = normal.lexically_relative(root);
  if (rel.empty() || *rel.begin() == "..") return false;
  *relative = rel.generic_string();
  if (*relative == ".") relative->clear();
  return true;
}

bool ReadManifest(const std::string& path, const fs::path& root, std::vector<Target>* targets) {
  std::ifstream in(path);
  if (!in) return false;
  std::string line;
  while (std::getline(in, line)) {
    const size_t space = line.find(' ');
    const std::string key = line.substr(0, space);
    const std::string value = space == std::string::npos ? "" : line.substr(space + 1);
    if (key == "target") {
      targets->push_back(Target{value, "", {}, {}});
    } else if (targets->empty()) {
      return false;
    } else if (key == "dir") {
      if (!RelativeToRoot(root, value, &targets->back().dir)) targets->back().dir = "//outside";
    } else if (key == "link") {
      targets->back().links.push_back(value);
    } else if (key == "source") {
      targets->back().sources.push_back(value);
    }
  }
  return true;
}

// The names of project targets an entry mentions: "neuronserve_base",
// "$<LINK_ONLY:neuronserve_base>", "$<TARGET_OBJECTS:nrtsim_objects>" all name one.
std::vector<std::string> TargetsNamedIn(const std::string& entry,
                                        const std::map<std::string, size_t>& index) {
  static const std::regex kToken("[A-Za-z0-9_.+-]+(::[A-Za-z0-9_.+-]+)*");
  std::vector<std::string> names;
  for (auto it = std::sregex_iterator(entry.begin(), entry.end(), kToken);
       it != std::sregex_iterator(); ++it) {
    if (index.count(it->str()) != 0) names.push_back(it->str());
  }
  return names;
}

class LayeringCheck {
 public:
  LayeringCheck(fs::path root, std::vector<Target> targets)
      : root_(std::move(root)), targets_(std::move(targets)) {
    for (size_t i = 0; i < targets_.size(); ++i) index_[targets_[i].name] = i;
    for (size_t i = 0; i < targets_.size(); ++i) {
      if (targets_[i].dir != "//outside") targets_by_dir_[targets_[i].dir].insert(i);
      for (const std::string& source : targets_[i].sources) {
        for (const std::string& object_library : TargetsNamedIn(source, index_)) {
          links_[i].insert(index_[object_library]);  // $<TARGET_OBJECTS:x> links x's code
        }
        if (source.find("$<") != std::string::npos) continue;
        fs::path path = source;
        if (path.is_relative()) path = root_ / targets_[i].dir / path;
        std::string relative;
        if (RelativeToRoot(root_, path, &relative)) listed_owners_[relative].insert(i);
      }
      for (const std::string& link : targets_[i].links) {
        for (const std::string& name : TargetsNamedIn(link, index_)) {
          links_[i].insert(index_[name]);
        }
      }
    }
  }

  // Checks every C/C++ file below the root; returns how many includes break the layering.
  int Run(std::ostream& out) {
    int violations = 0;
    int files = 0;
    int includes = 0;
    std::vector<std::string> paths;
    for (auto it = fs::recursive_directory_iterator(root_);
         it != fs::recursive_directory_iterator(); ++it) {
      const std::string name = it->path().filename().string();
      if (it->is_directory() &&
          (name.rfind("build", 0) == 0 || name.rfind(".", 0) == 0 || name == "node_modules")) {
        it.disable_recursion_pending();
        continue;
      }
      const std::string extension = it->path().extension().string();
      if (!it->is_regular_file() ||
          (extension != ".h" && extension != ".cc" && extension != ".cpp" && extension != ".c")) {
        continue;
      }
      std::string relative;
      if (RelativeToRoot(root_, it->path(), &relative)) paths.push_back(relative);
    }
    std::sort(paths.begin(), paths.end());
    static const std::regex kInclude(R"(^\s*#\s*include\s*"([^"]+)\")");
    for (const std::string& file : paths) {
      const std::set<size_t> owners = OwnersOf(file);
      if (owners.empty()) continue;  // no target builds it (a tool, an example)
      ++files;
      const std::set<size_t> allowed = AllowedFor(owners);
      std::ifstream in(root_ / file);
      std::string line;
      for (int number = 1; std::getline(in, line); ++number) {
        std::smatch match;
        if (!std::regex_search(line, match, kInclude)) continue;
        std::string included;
        if (!Resolve(file, match[1].str(), &included)) continue;
        ++includes;
        const std::set<size_t> included_owners = OwnersOf(included);
        if (included_owners.empty()) continue;
        const bool ok = std::any_of(included_owners.begin(), included_owners.end(),
                                    [&](size_t owner) { return allowed.count(owner) != 0; });
        if (ok) continue;
        ++violations;
        out << file << ":" << number << ": includes \"" << match[1].str()
            << "\", which belongs to layer " << Describe(included_owners) << "; " << file
            << " belongs to " << Describe(owners)
            << ", which does not link it (link the layer in CMake if the dependency is meant, "
               "or move the code to the layer it belongs to)\n";
      }
    }
    out << "layering: " << files << " files, " << includes << " includes of the tree's own files, "
        << targets_.size() << " targets: "
        << (violations == 0 ? "every include follows the links"
                            : std::to_string(violations) + " includes break the layering")
        << "\n";
    return violations;
  }

 private:
  std::set<size_t> OwnersOf(const std::string& file) {
    auto listed = listed_owners_.find(file);
    if (listed != listed_owners_.end()) return listed->second;
    for (fs::path dir = fs::path(file).parent_path();; dir = dir.parent_path()) {
      auto found = targets_by_dir_.find(dir.generic_string());
      if (found != targets_by_dir_.end()) return found->second;
      if (dir.empty()) return {};
    }
  }

  std::set<size_t> AllowedFor(const std::set<size_t>& owners) {
    std::set<size_t> allowed;
    std::vector<size_t> pending(owners.begin(), owners.end());
    while (!pending.empty()) {
      const size_t target = pending.back();
      pending.pop_back();
      if (!allowed.insert(target).second) continue;
      for (size_t linked : links_[target]) pending.push_back(linked);
    }
    return allowed;
  }

  bool Resolve(const std::string& file, const std::string& include, std::string* resolved) {
    for (const fs::path& candidate :
         {root_ / include, root_ / fs::path(file).parent_path() / include}) {
      std::error_code error;
      if (fs::is_regular_file(candidate, error) && RelativeToRoot(root_, candidate, resolved)) {
        return true;
      }
    }
    return false;
  }

  std::string Describe(const std::set<size_t>& owners) {
    std::ostringstream text;
    bool first = true;
    for (size_t owner : owners) {
      text << (first ? "" : ", ") << targets_[owner].name << " ("
           << (targets_[owner].dir.empty() ? "." : targets_[owner].dir) << "/)";
      first = false;
    }
    return text.str();
  }

  fs::path root_;
  std::vector<Target> targets_;
  std::map<std::string, size_t> index_;
  std::map<std::string, std::set<size_t>> targets_by_dir_;
  std::map<std::string, std::set<size_t>> listed_owners_;
  std::map<size_t, std::set<size_t>> links_;
};

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::cerr << "usage: layering_check <manifest> <source root>\n";
    return 2;
  }
  const fs::path root = fs::weakly_canonical(argv[2]);
  std::vector<Target> targets;
  if (!ReadManifest(argv[1], root, &targets)) {
    std::cerr << "layering_check: cannot read the manifest " << argv[1] << "\n";
    return 2;
  }
  return LayeringCheck(root, std::move(targets)).Run(std::cout) == 0 ? 0 : 1;
}
