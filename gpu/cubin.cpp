// Minimal ELF64 reader for cubins: kernel entry names, the SM version, and
// the __device__/__constant__ variables a replay must restore.
#include "gpu/analysis.h"

#include <cstring>

namespace kbcc::gpu {
namespace {

struct Section {
  std::string name;
  uint32_t type = 0;
  uint64_t offset = 0, size = 0, entsize = 0;
  uint32_t link = 0;
};

template <class T> bool read_at(std::string_view elf, uint64_t off, T &out) {
  if (off + sizeof(T) > elf.size()) return false;
  std::memcpy(&out, elf.data() + off, sizeof(T));
  return true;
}

std::string c_string(std::string_view elf, uint64_t off) {
  if (off >= elf.size()) return {};
  size_t end = elf.find('\0', off);
  return std::string(elf.substr(off, end == std::string_view::npos ? std::string_view::npos : end - off));
}

bool is_global_section(const std::string &name) {
  return name == ".nv.global" || name == ".nv.global.init" || name == ".nv.constant1" || name == ".nv.constant2" ||
         name == ".nv.constant3";
}

} // namespace

Expected<CubinInfo> inspect_cubin(std::string_view elf) {
  if (elf.size() < 64 ||
      std::memcmp(elf.data(),
                  "\x7f"
                  "ELF",
                  4) != 0 ||
      elf[4] != 2)
    return make_error("not a 64-bit ELF cubin");
  uint64_t shoff = 0;
  uint16_t shentsize = 0, shnum = 0, shstrndx = 0;
  uint32_t flags = 0;
  read_at(elf, 0x28, shoff);
  read_at(elf, 0x30, flags);
  read_at(elf, 0x3a, shentsize);
  read_at(elf, 0x3c, shnum);
  read_at(elf, 0x3e, shstrndx);
  if (shentsize < 64 || shoff + uint64_t(shnum) * shentsize > elf.size() || shstrndx >= shnum)
    return make_error("cubin section table is out of range");
  std::vector<Section> sections(shnum);
  for (uint16_t i = 0; i < shnum; ++i) {
    uint64_t base = shoff + uint64_t(i) * shentsize;
    uint32_t name_off = 0;
    read_at(elf, base, name_off);
    read_at(elf, base + 4, sections[i].type);
    read_at(elf, base + 0x18, sections[i].offset);
    read_at(elf, base + 0x20, sections[i].size);
    read_at(elf, base + 0x28, sections[i].link);
    read_at(elf, base + 0x38, sections[i].entsize);
    sections[i].name = std::to_string(name_off); // resolved below
  }
  const Section &strtab = sections[shstrndx];
  for (auto &s : sections)
    s.name = c_string(elf, strtab.offset + std::stoull(s.name));

  CubinInfo info;
  // EF_CUDA_SM: bits 8-15 from ELF ABI version 8 (CUDA 12.8+), bits 0-7 before.
  info.sm = static_cast<unsigned char>(elf[8]) >= 8 ? (flags >> 8) & 0xff : flags & 0xff;
  for (const auto &s : sections) {
    if (s.type != 2 /*SHT_SYMTAB*/ || s.entsize < 24 || s.link >= sections.size()) continue;
    const Section &names = sections[s.link];
    for (uint64_t off = s.offset; off + 24 <= s.offset + s.size; off += s.entsize) {
      uint32_t name = 0;
      uint8_t info_byte = 0, other = 0;
      uint16_t shndx = 0;
      uint64_t size = 0;
      read_at(elf, off, name);
      read_at(elf, off + 4, info_byte);
      read_at(elf, off + 5, other);
      read_at(elf, off + 6, shndx);
      read_at(elf, off + 16, size);
      std::string sym = c_string(elf, names.offset + name);
      uint8_t type = info_byte & 0xf;
      if (type == 2 /*STT_FUNC*/ && shndx < sections.size() && sections[shndx].name == ".text." + sym)
        if (other & 0x10 /*STO_CUDA_ENTRY*/) info.kernels.push_back(sym);
      if (type == 1 /*STT_OBJECT*/ && shndx < sections.size() && is_global_section(sections[shndx].name) && size > 0)
        info.globals.push_back({sym, sections[shndx].name, size});
    }
  }
  return info;
}

} // namespace kbcc::gpu
