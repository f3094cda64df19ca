// Checks deploy/Dockerfile without building the image (no Docker daemon needed): that the
// runtime stage installs Debian packages that exist and that hold every shared library the
// built daemon and the simulator link against, that the `neuron` stage adds AWS's Neuron runtime
// where the manifests look for it while the default image stays the simulator's, and that what
// the manifests and the unit assume of the image (paths, user, tag) is what the Dockerfile makes.
#include <algorithm>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "gtest/gtest.h"
#include "tests/deploy/deploy_tools.h"
#include "tests/support/build_paths.h"
#include "tests/support/subprocess.h"

namespace neuronserve::testing {
namespace {

struct Dockerfile {
  std::vector<std::string> stages;  // each stage's instructions, continuation lines joined
  std::vector<std::string> names;   // each stage's name (FROM ... AS name), "" for none
  // The stage named `name`, or "" (and a test failure) when there is none.
  std::string Stage(const std::string& name) const {
    for (size_t i = 0; i < names.size(); ++i) {
      if (names[i] == name) return stages[i];
    }
    ADD_FAILURE() << "no stage named " << name;
    return "";
  }
};

Dockerfile ParseDockerfile(const std::string& text) {
  Dockerfile file;
  std::string instruction;
  for (absl::string_view raw : absl::StrSplit(text, '\n')) {
    absl::string_view line = absl::StripAsciiWhitespace(raw);
    if (instruction.empty() && (line.empty() || absl::StartsWith(line, "#"))) continue;
    if (absl::StartsWith(line, "#")) continue;  // a comment inside a continued instruction
    const bool continued = absl::EndsWith(line, "\\");
    if (continued) line.remove_suffix(1);
    absl::StrAppend(&instruction, line, " ");
    if (continued) continue;
    if (absl::StartsWith(instruction, "FROM ")) {
      file.stages.emplace_back();
      std::vector<std::string> words = absl::StrSplit(instruction, ' ', absl::SkipWhitespace());
      file.names.push_back(words.size() == 4 && absl::AsciiStrToUpper(words[2]) == "AS" ? words[3]
                                                                                        : "");
    }
    if (!file.stages.empty()) absl::StrAppend(&file.stages.back(), instruction, "\n");
    instruction.clear();
  }
  return file;
}

// The packages of every `apt-get install` in `stage`.
std::vector<std::string> InstalledPackages(const std::string& stage) {
  std::vector<std::string> packages;
  for (absl::string_view command : absl::StrSplit(stage, absl::ByAnyChar("&;\n"))) {
    std::vector<std::string> words = absl::StrSplit(command, ' ', absl::SkipWhitespace());
    auto install = std::find(words.begin(), words.end(), "install");
    if (install == words.end() || std::find(words.begin(), install, "apt-get") == install) {
      continue;
    }
    for (auto word = install + 1; word != words.end(); ++word) {
      if (!absl::StartsWith(*word, "-")) packages.push_back(*word);
    }
  }
  return packages;
}

class DockerfileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    absl::StatusOr<std::string> text = ReadFile(std::string(DEPLOY_DIR) + "/Dockerfile");
    ASSERT_TRUE(text.ok()) << text.status();
    text_ = *text;
    dockerfile_ = ParseDockerfile(text_);
    // The build, the runtime (the image's common part), the runtime with AWS's Neuron runtime,
    // and last, so the default of `docker build`, the simulator's image.
    ASSERT_EQ(dockerfile_.names,
              (std::vector<std::string>{"build", "runtime", "neuron", "simulator"}));
    runtime_packages_ = InstalledPackages(dockerfile_.Stage("runtime"));
    ASSERT_FALSE(runtime_packages_.empty());
  }

  std::string text_;
  Dockerfile dockerfile_;
  std::vector<std::string> runtime_packages_;
};

TEST_F(DockerfileTest, StagesAreDebianBookworm) {
  const std::string build = dockerfile_.Stage("build");
  const std::string runtime = dockerfile_.Stage("runtime");
  EXPECT_TRUE(absl::StartsWith(build, "FROM debian:bookworm AS build")) << build;
  EXPECT_TRUE(absl::StartsWith(runtime, "FROM debian:bookworm-slim AS runtime")) << runtime;
  // The build stage installs what CI installs, from the one list.
  EXPECT_TRUE(absl::StrContains(build, "bash /src/.ci/install-deps"));
  EXPECT_TRUE(absl::StrContains(runtime, "--no-install-recommends"));
  EXPECT_TRUE(absl::StrContains(runtime, "rm -rf /var/lib/apt/lists/*"));
}

// Without --target the image is the simulator's: the runtime stage as it is, nothing added.
TEST_F(DockerfileTest, TheDefaultImageIsTheSimulatorsWithoutANeuronRuntime) {
  EXPECT_EQ(dockerfile_.stages.back(), "FROM runtime AS simulator \n");
  EXPECT_FALSE(absl::StrContains(dockerfile_.Stage("runtime"), "neuron.amazonaws.com"));
  EXPECT_FALSE(absl::StrContains(dockerfile_.Stage("runtime"), "/opt/aws/neuron"));
}

// The `neuron` stage: the runtime stage plus aws-neuronx-runtime-lib from AWS's Neuron apt
// repository (signed by its key), at the path the manifests point NEURON_SERVE_NRT_LIBRARY at,
// checked with ldd at build time, and back to the unprivileged user.
TEST_F(DockerfileTest, TheNeuronStageInstallsTheRuntimeWhereTheManifestsLook) {
  const std::string neuron = dockerfile_.Stage("neuron");
  EXPECT_TRUE(absl::StartsWith(neuron, "FROM runtime AS neuron")) << neuron;
  const std::vector<std::string> packages = InstalledPackages(neuron);
  EXPECT_NE(std::find(packages.begin(), packages.end(),
                      R"("aws-neuronx-runtime-lib=${NEURON_RUNTIME_VERSION}")"),
            packages.end())
      << absl::StrJoin(packages, " ");
  EXPECT_TRUE(absl::StrContains(neuron, "ARG NEURON_RUNTIME_VERSION="));
  EXPECT_TRUE(absl::StrContains(neuron, "ARG NEURON_APT_CODENAME="));
  EXPECT_TRUE(absl::StrContains(
      neuron,
      "deb [signed-by=/etc/apt/keyrings/neuron.gpg] https://apt.repos.neuron.amazonaws.com"));
  EXPECT_TRUE(absl::StrContains(neuron, "GPG-PUB-KEY-AMAZON-AWS-NEURON.PUB"));
  EXPECT_TRUE(absl::StrContains(neuron, absl::StrCat("ldd ", kImageNeuronRuntime)));
  EXPECT_TRUE(absl::StrContains(neuron, "grep \"not found\""));
  EXPECT_TRUE(absl::StrContains(neuron, "rm -rf /var/lib/apt/lists/*"));
  // Root only to install; the last USER is the image's unprivileged one.
  EXPECT_TRUE(absl::StrContains(neuron, "USER root"));
  EXPECT_TRUE(absl::EndsWith(neuron, "USER 10001:10001 \n")) << neuron;
  EXPECT_FALSE(absl::StrContains(neuron, "ENV ")) << "the manifests' environment is all it gets";
  // The command in the header builds the image the manifests name.
  EXPECT_TRUE(absl::StrContains(
      text_,
      absl::StrCat("docker build -f deploy/Dockerfile --target neuron -t ", kNeuronImage, " .")));
}

TEST_F(DockerfileTest, RuntimePackagesExistInTheDebianArchive) {
  const std::string apt_cache = FindProgram("apt-cache");
  ASSERT_FALSE(apt_cache.empty()) << "apt-cache is not on PATH (the project builds on Debian)";
  // One call for all of them: apt-cache reads the whole archive index each time it starts.
  std::vector<std::string> argv = {apt_cache, "show", "--no-all-versions"};
  argv.insert(argv.end(), runtime_packages_.begin(), runtime_packages_.end());
  const ProcessResult show = RunProcess(argv);
  EXPECT_EQ(show.exit_code, 0) << show.err;
  for (const std::string& package : runtime_packages_) {
    EXPECT_TRUE(absl::StrContains(show.out, "\nPackage: " + package + "\n") ||
                absl::StartsWith(show.out, "Package: " + package + "\n"))
        << "apt-cache knows no package " << package;
  }
}

// The Debian package of each shared library `ldd` resolves for `binary`.
void ExpectLibrariesCovered(const std::string& binary, const std::vector<std::string>& packages) {
  const std::string ldd = FindProgram("ldd");
  const std::string dpkg = FindProgram("dpkg");
  ASSERT_FALSE(ldd.empty() || dpkg.empty()) << "ldd and dpkg must be on PATH";
  const ProcessResult linked = RunProcess({ldd, binary});
  ASSERT_EQ(linked.exit_code, 0) << linked.err;
  std::vector<std::string> libraries;
  for (absl::string_view line : absl::StrSplit(linked.out, '\n')) {
    const size_t arrow = line.find("=> /");
    if (arrow == absl::string_view::npos) continue;
    absl::string_view path = line.substr(arrow + 3);
    path = path.substr(0, path.find(' '));
    // The sanitizer runtimes of an ASan/TSan build of the tests; the image is built without.
    const std::string name(path.substr(path.rfind('/') + 1));
    if (absl::StartsWith(name, "libasan") || absl::StartsWith(name, "libubsan") ||
        absl::StartsWith(name, "libtsan")) {
      continue;
    }
    libraries.emplace_back(path);
  }
  ASSERT_FALSE(libraries.empty()) << linked.out;
  // dpkg -S knows a file by the path its package installed it under: with the merged /usr of
  // bookworm that is /lib/... for some packages and /usr/lib/... for others; ask for both.
  std::vector<std::string> argv = {dpkg, "-S"};
  for (const std::string& library : libraries) {
    argv.push_back(library);
    argv.push_back(absl::StartsWith(library, "/usr/") ? library.substr(4)
                                                      : absl::StrCat("/usr", library));
  }
  const ProcessResult owners = RunProcess(argv);  // exits 1: half of the paths are unknown
  std::map<std::string, std::set<std::string>> packages_of;  // path as dpkg knows it -> package
  for (absl::string_view line : absl::StrSplit(owners.out, '\n')) {
    const size_t separator = line.find(": /");
    if (separator == absl::string_view::npos) continue;
    for (absl::string_view owner : absl::StrSplit(line.substr(0, separator), ", ")) {
      packages_of[std::string(line.substr(separator + 2))].insert(
          std::string(owner.substr(0, owner.find(':'))));  // "libssl3:amd64" -> "libssl3"
    }
  }
  std::set<std::string> image(packages.begin(), packages.end());
  image.insert("libc6");  // essential: in every Debian image
  for (const std::string& library : libraries) {
    const std::string other =
        absl::StartsWith(library, "/usr/") ? library.substr(4) : absl::StrCat("/usr", library);
    std::set<std::string> owners_of_library = packages_of[library];
    owners_of_library.insert(packages_of[other].begin(), packages_of[other].end());
    ASSERT_FALSE(owners_of_library.empty()) << "no Debian package holds " << library;
    bool covered = false;
    for (const std::string& owner : owners_of_library) covered |= image.contains(owner);
    EXPECT_TRUE(covered) << binary << " needs " << library << " from "
                         << absl::StrJoin(owners_of_library, " or ")
                         << ", which the runtime stage does not install";
  }
}

TEST_F(DockerfileTest, RuntimePackagesHoldEveryLibraryTheDaemonLinks) {
  ExpectLibrariesCovered(NEURON_SERVE_PATH, runtime_packages_);
}

TEST_F(DockerfileTest, RuntimePackagesHoldEveryLibraryTheSimulatorLinks) {
  ExpectLibrariesCovered(NRTSIM_LIBRARY_PATH, runtime_packages_);
}

TEST_F(DockerfileTest, TheImageIsWhatTheManifestsExpect) {
  const std::string runtime = dockerfile_.Stage("runtime");
  EXPECT_TRUE(absl::StrContains(runtime, R"(ENTRYPOINT ["/usr/local/bin/neuron-serve"])"));
  // A numeric, non-root user: Kubernetes' runAsNonRoot can only verify a number; the
  // manifests run as 10001 too.
  EXPECT_TRUE(absl::StrContains(runtime, "USER 10001:10001"));
  EXPECT_TRUE(absl::StrContains(runtime, "COPY --from=build /out/ /"));
  // The build stage puts the files where the manifests and the README say they are.
  const std::string build = dockerfile_.Stage("build");
  for (const char* path :
       {"/out/usr/local/bin/neuron-serve", "/out/usr/local/bin/neuronctl",
        "/out/usr/local/lib/neuron-serve/libnrtsim.so",
        "/out/usr/local/bin/assemble-model-repository", "/out/usr/share/neuron-serve/models"}) {
    EXPECT_TRUE(absl::StrContains(build, path)) << path;
  }
  EXPECT_TRUE(absl::StrContains(build, "/src/deploy/assemble-model-repository.sh"));
  // No NEURON_SERVE_* defaults baked in: the manifests' environment is all the daemon gets.
  EXPECT_FALSE(absl::StrContains(runtime, "ENV ")) << "the manifest run test assumes no ENV";
  // The CMD listens on every interface (a container's loopback is unreachable from outside).
  EXPECT_TRUE(absl::StrContains(runtime, R"(CMD ["--listen=0.0.0.0:8001")"));
}

TEST_F(DockerfileTest, TheBuildContextLeavesOutBuildTrees) {
  absl::StatusOr<std::string> ignore = ReadFile(std::string(DEPLOY_DIR) + "/Dockerfile.dockerignore");
  ASSERT_TRUE(ignore.ok()) << ignore.status();
  EXPECT_TRUE(absl::StrContains(*ignore, "\nbuild*/\n"));
  EXPECT_TRUE(absl::StrContains(*ignore, "\n.git\n"));
}

}  // namespace
}  // namespace neuronserve::testing
