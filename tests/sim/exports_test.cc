// The library's dynamic symbol table: exactly the ABI (the nrt_* functions the simulator
// implements and its nrtsim_* test hooks), each under the real library's version tag, and
// nothing else: none of the C++ internals (which would clash with the daemon's own copy of,
// e.g., the dtype tables). The table is read from the ELF file itself (.dynsym, .gnu.version,
// .gnu.version_d), so an unexpected export fails the test with its name, whatever it is.
// The three builds without some of the core-count functions are checked the same way.
#include <dlfcn.h>
#include <elf.h>

#include <cstring>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "tests/sim/sim_test_util.h"
#include "tests/support/build_paths.h"

namespace nrtsim_test {
namespace {

constexpr char kVersionTag[] = "NRT_2.0.0";

// What the full build exports (sim/nrtsim.map keeps nrt_* and nrtsim_* global).
const std::set<std::string>& FullAbi() {
  static const std::set<std::string> abi = {
      "nrt_add_tensor_to_tensor_set",
      "nrt_allocate_tensor_set",
      "nrt_close",
      "nrt_destroy_tensor_set",
      "nrt_execute",
      "nrt_free_model_tensor_info",
      "nrt_get_instance_info",
      "nrt_get_model_info",
      "nrt_get_model_nc_count",
      "nrt_get_model_tensor_info",
      "nrt_get_model_vnc_count",
      "nrt_get_status_as_str",
      "nrt_get_tensor_from_tensor_set",
      "nrt_get_total_nc_count",
      "nrt_get_total_vnc_count",
      "nrt_get_version",
      "nrt_get_visible_nc_count",
      "nrt_get_visible_vnc_count",
      "nrt_get_vnc_memory_stats",
      "nrt_init",
      "nrt_load",
      "nrt_tensor_allocate",
      "nrt_tensor_free",
      "nrt_tensor_get_size",
      "nrt_tensor_memset",
      "nrt_tensor_read",
      "nrt_tensor_write",
      "nrt_unload",
      "nrtsim_get_core_busy",
      "nrtsim_get_stats",
      "nrtsim_reset_peak",
  };
  return abi;
}

std::set<std::string> FullAbiWithout(const std::set<std::string>& left_out) {
  std::set<std::string> abi = FullAbi();
  for (const std::string& name : left_out) EXPECT_EQ(abi.erase(name), 1u) << name;
  return abi;
}

// The dynamic symbols an ELF shared library defines.
struct DynamicExports {
  std::string error;                            // set when the file could not be read as ELF
  std::map<std::string, std::string> symbols;   // defined global/weak symbol -> its version
  std::set<std::string> version_nodes;          // the versions it defines (not its file name)
};

// Reads `path` (a 64-bit little-endian ELF file, as every build here produces) and lists its
// defined dynamic symbols with their versions. The absolute symbols a version script adds for
// each version node (nm shows them as "A NRT_2.0.0") are version_nodes, not symbols.
DynamicExports ReadDynamicExports(const std::string& path) {
  DynamicExports exports;
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  std::string file(in ? static_cast<size_t>(in.tellg()) : 0, '\0');
  in.seekg(0);
  if (!in.read(file.data(), static_cast<std::streamsize>(file.size()))) file.clear();
  // Copies a T out of the file at `offset`; false if it is not all inside the file.
  auto read = [&file](uint64_t offset, auto* out) {
    if (offset > file.size() || file.size() - offset < sizeof(*out)) return false;
    std::memcpy(out, file.data() + offset, sizeof(*out));
    return true;
  };
  auto string_at = [&file](const Elf64_Shdr& table, uint64_t index) -> std::string {
    if (index >= table.sh_size || table.sh_offset + index >= file.size()) return "";
    const char* start = file.data() + table.sh_offset + index;
    return std::string(start, strnlen(start, file.size() - (table.sh_offset + index)));
  };

  Elf64_Ehdr header;
  if (!read(0, &header) || std::memcmp(header.e_ident, ELFMAG, SELFMAG) != 0 ||
      header.e_ident[EI_CLASS] != ELFCLASS64 || header.e_ident[EI_DATA] != ELFDATA2LSB ||
      header.e_shentsize != sizeof(Elf64_Shdr)) {
    exports.error = path + " is not a 64-bit little-endian ELF file";
    return exports;
  }
  std::vector<Elf64_Shdr> sections(header.e_shnum);
  for (size_t i = 0; i < sections.size(); ++i) {
    if (!read(header.e_shoff + i * sizeof(Elf64_Shdr), &sections[i])) {
      exports.error = path + ": section header " + std::to_string(i) + " is past the end";
      return exports;
    }
  }
  const Elf64_Shdr* dynsym = nullptr;
  const Elf64_Shdr* versym = nullptr;
  const Elf64_Shdr* verdef = nullptr;
  for (const Elf64_Shdr& section : sections) {
    if (section.sh_type == SHT_DYNSYM) dynsym = &section;
    if (section.sh_type == SHT_GNU_versym) versym = &section;
    if (section.sh_type == SHT_GNU_verdef) verdef = &section;
  }
  if (dynsym == nullptr || dynsym->sh_link >= sections.size()) {
    exports.error = path + " has no dynamic symbol table";
    return exports;
  }

  // Version index -> name, from the chain of Elf64_Verdef entries; the base entry (the file's
  // own name) is not a version node.
  std::map<uint16_t, std::string> versions;
  if (verdef != nullptr && verdef->sh_link < sections.size()) {
    uint64_t offset = verdef->sh_offset;
    for (uint64_t n = 0; n < verdef->sh_info; ++n) {
      Elf64_Verdef definition;
      Elf64_Verdaux aux;
      if (!read(offset, &definition) || !read(offset + definition.vd_aux, &aux)) break;
      const std::string name = string_at(sections[verdef->sh_link], aux.vda_name);
      versions[definition.vd_ndx] = name;
      if ((definition.vd_flags & VER_FLG_BASE) == 0) exports.version_nodes.insert(name);
      if (definition.vd_next == 0) break;
      offset += definition.vd_next;
    }
  }

  const Elf64_Shdr& names = sections[dynsym->sh_link];
  const uint64_t count = dynsym->sh_size / sizeof(Elf64_Sym);
  for (uint64_t i = 1; i < count; ++i) {  // entry 0 is the null symbol
    Elf64_Sym symbol;
    if (!read(dynsym->sh_offset + i * sizeof(Elf64_Sym), &symbol)) break;
    const unsigned char binding = ELF64_ST_BIND(symbol.st_info);
    if (symbol.st_shndx == SHN_UNDEF || binding == STB_LOCAL) continue;  // imported, or local
    const std::string name = string_at(names, symbol.st_name);
    std::string version;
    Elf64_Half index = 0;
    if (versym != nullptr && read(versym->sh_offset + i * sizeof(Elf64_Half), &index)) {
      auto it = versions.find(static_cast<uint16_t>(index & 0x7fff));
      if (it != versions.end()) version = it->second;
    }
    if (symbol.st_shndx == SHN_ABS && exports.version_nodes.count(name) != 0) continue;
    exports.symbols[name] = version;
  }
  return exports;
}

std::string Join(const std::set<std::string>& names) {
  std::ostringstream out;
  for (const std::string& name : names) out << "\n  " << name;
  return names.empty() ? " (none)" : out.str();
}

// The library at `path` exports exactly `expected`, each under kVersionTag, and defines no
// version but kVersionTag.
void ExpectExportsExactly(const std::string& path, const std::set<std::string>& expected) {
  SCOPED_TRACE(path);
  const DynamicExports exports = ReadDynamicExports(path);
  ASSERT_EQ(exports.error, "");
  std::set<std::string> unexpected;
  std::set<std::string> missing = expected;
  for (const auto& [name, version] : exports.symbols) {
    if (missing.erase(name) == 0) unexpected.insert(name);
    EXPECT_EQ(version, kVersionTag) << name;
  }
  EXPECT_TRUE(unexpected.empty()) << "exported, and not part of the ABI:" << Join(unexpected);
  EXPECT_TRUE(missing.empty()) << "part of the ABI, and not exported:" << Join(missing);
  EXPECT_EQ(exports.version_nodes, std::set<std::string>({kVersionTag}));
}

TEST(ExportsTest, AbiFunctionsCarryTheNrt200VersionTag) {
  void* library = Api().library;
  for (const char* name : {"nrt_init", "nrt_close", "nrt_load", "nrt_execute",
                           "nrt_get_vnc_memory_stats", "nrtsim_get_stats"}) {
    void* versioned = dlvsym(library, name, "NRT_2.0.0");
    EXPECT_NE(versioned, nullptr) << name;
    EXPECT_EQ(versioned, dlsym(library, name)) << name;
  }
}

TEST(ExportsTest, InternalsAreNotExported) {
  void* library = Api().library;
  EXPECT_EQ(dlsym(library,
                  "_ZN11neuronserve16DataTypeFromNameESt17basic_string_viewIcSt11char_"
                  "traitsIcEE"),
            nullptr);
  EXPECT_EQ(dlsym(library,
                  "_ZN11neuronserve6nrtsim7LogLineESt17basic_string_viewIcSt11char_"
                  "traitsIcEE"),
            nullptr);
}

TEST(ExportsTest, TheLibraryExportsExactlyTheAbi) {
  ExpectExportsExactly(NRTSIM_LIBRARY_PATH, FullAbi());
}

TEST(ExportsTest, TheBuildsWithoutCoreCountFunctionsExportTheAbiLessThem) {
  ExpectExportsExactly(NRTSIM_NO_MODEL_NC_COUNT_LIBRARY_PATH,
                       FullAbiWithout({"nrt_get_model_nc_count"}));
  ExpectExportsExactly(NRTSIM_MODEL_INFO_ONLY_LIBRARY_PATH,
                       FullAbiWithout({"nrt_get_model_nc_count", "nrt_get_model_vnc_count"}));
  ExpectExportsExactly(NRTSIM_NO_MODEL_CORE_COUNT_LIBRARY_PATH,
                       FullAbiWithout({"nrt_get_model_nc_count", "nrt_get_model_vnc_count",
                                       "nrt_get_model_info"}));
}

// The reader itself: a file that is not ELF is an error, not an empty (passing) table.
TEST(ExportsTest, ANonElfFileIsAnError) {
  EXPECT_NE(ReadDynamicExports("/dev/null").error, "");
  EXPECT_NE(ReadDynamicExports(NRTSIM_LIBRARY_PATH + std::string(".missing")).error, "");
}

}  // namespace
}  // namespace nrtsim_test
