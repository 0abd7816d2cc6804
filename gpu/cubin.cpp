// Minimal ELF64 reader for cubins: kernel entry names, the SM version, and
// the __device__/__constant__ variables a replay must restore.
#include "gpu/analysis.h"

#include <cstring>
#include <set>

namespace kbcc::gpu {
namespace {

struct Section {
  std::string name;
  uint32_t type = 0;
  uint64_t offset = 0, size = 0, entsize = 0;
  uint32_t link = 0, info = 0;
};

struct Symbol {
  std::string name;
  uint8_t type = 0, other = 0;
  uint16_t shndx = 0;
  uint64_t value = 0, size = 0;
};

struct Relocation {
  uint64_t offset = 0; // in the section it applies to
  uint32_t symbol = 0; // index into ElfView::symbols
};

// The parts of a cubin kbcc reads: sections, the symbol table, relocations
// by the index of the section they apply to.
struct ElfView {
  unsigned sm = 0;
  std::vector<Section> sections;
  std::vector<Symbol> symbols;
  std::vector<std::vector<Relocation>> relocations; // per section index
  const Section *section(size_t i) const { return i < sections.size() ? &sections[i] : nullptr; }
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

// The constant bank of a ".nv.constantN" section; -1 for other sections.
int constant_bank(const std::string &section) {
  const std::string prefix = ".nv.constant";
  if (section.rfind(prefix, 0) != 0 || section.size() == prefix.size()) return -1;
  for (size_t i = prefix.size(); i < section.size(); ++i)
    if (section[i] < '0' || section[i] > '9') return -1;
  return std::stoi(section.substr(prefix.size()));
}

void read_symbols(std::string_view elf, ElfView &v) {
  for (const Section &s : v.sections) {
    if (s.type != 2 /*SHT_SYMTAB*/ || s.entsize < 24 || s.link >= v.sections.size()) continue;
    const Section &names = v.sections[s.link];
    for (uint64_t off = s.offset; off + 24 <= s.offset + s.size; off += s.entsize) {
      uint32_t name = 0;
      Symbol sym;
      read_at(elf, off, name);
      uint8_t info = 0;
      read_at(elf, off + 4, info);
      read_at(elf, off + 5, sym.other);
      read_at(elf, off + 6, sym.shndx);
      read_at(elf, off + 8, sym.value);
      read_at(elf, off + 16, sym.size);
      sym.type = info & 0xf;
      sym.name = c_string(elf, names.offset + name);
      v.symbols.push_back(std::move(sym));
    }
    return; // one symbol table per cubin
  }
}

void read_relocations(std::string_view elf, ElfView &v) {
  v.relocations.assign(v.sections.size(), {});
  for (const Section &s : v.sections) {
    bool rela = s.type == 4 /*SHT_RELA*/;
    if ((!rela && s.type != 9 /*SHT_REL*/) || s.entsize < (rela ? 24u : 16u) || s.info >= v.sections.size()) continue;
    for (uint64_t off = s.offset; off + s.entsize <= s.offset + s.size; off += s.entsize) {
      Relocation r;
      uint64_t info = 0;
      read_at(elf, off, r.offset);
      read_at(elf, off + 8, info);
      r.symbol = static_cast<uint32_t>(info >> 32);
      v.relocations[s.info].push_back(r);
    }
  }
}

Expected<ElfView> read_elf(std::string_view elf) {
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
  ElfView v;
  // EF_CUDA_SM: bits 8-15 from ELF ABI version 8 (CUDA 12.8+), bits 0-7 before.
  v.sm = static_cast<unsigned char>(elf[8]) >= 8 ? (flags >> 8) & 0xff : flags & 0xff;
  v.sections.resize(shnum);
  std::vector<uint32_t> name_offsets(shnum);
  for (uint16_t i = 0; i < shnum; ++i) {
    uint64_t base = shoff + uint64_t(i) * shentsize;
    read_at(elf, base, name_offsets[i]);
    read_at(elf, base + 4, v.sections[i].type);
    read_at(elf, base + 0x18, v.sections[i].offset);
    read_at(elf, base + 0x20, v.sections[i].size);
    read_at(elf, base + 0x28, v.sections[i].link);
    read_at(elf, base + 0x2c, v.sections[i].info);
    read_at(elf, base + 0x38, v.sections[i].entsize);
  }
  for (uint16_t i = 0; i < shnum; ++i)
    v.sections[i].name = c_string(elf, v.sections[shstrndx].offset + name_offsets[i]);
  read_symbols(elf, v);
  read_relocations(elf, v);
  return v;
}

// What one kernel's instruction words can address: constant (bank, byte
// offset) pairs read with the operand layouts of sm_70..sm_120 (bank in
// bits 54-58; offset in bytes from bit 38, or in words from bit 40; the
// uniform load LDCU of sm_100+, opcode 0x7ac, has it in bytes from bit 37),
// and the banks seen at all. Words that are no constant operand add noise,
// which only makes the answer larger.
struct ConstantRefs {
  std::set<std::pair<unsigned, uint64_t>> operands;
  std::set<unsigned> banks;
};

void scan_code(std::string_view code, ConstantRefs &refs) {
  for (size_t at = 0; at + 16 <= code.size(); at += 16) {
    uint64_t lo = 0;
    std::memcpy(&lo, code.data() + at, 8);
    unsigned bank = static_cast<unsigned>((lo >> 54) & 0x1f);
    refs.banks.insert(bank);
    refs.operands.insert({bank, ((lo >> 40) & 0x3fff) * 4});
    refs.operands.insert({bank, (lo >> 38) & 0xffff});
    if ((lo & 0xfff) == 0x7ac) refs.operands.insert({bank, (lo >> 37) & 0xffff});
  }
}

// The text sections of `kernel` and of the functions its code relocates
// against (callees ptxas did not clone into the kernel), and the objects
// those relocations name directly.
void kernel_code(const ElfView &v, const std::string &kernel, std::set<size_t> &texts, std::set<uint32_t> &objects) {
  std::vector<std::string> pending = {kernel};
  std::set<std::string> seen;
  while (!pending.empty()) {
    std::string fn = pending.back();
    pending.pop_back();
    if (!seen.insert(fn).second) continue;
    for (size_t i = 0; i < v.sections.size(); ++i) {
      if (v.sections[i].name != ".text." + fn) continue;
      texts.insert(i);
      for (const Relocation &r : v.relocations[i]) {
        if (r.symbol >= v.symbols.size()) continue;
        const Symbol &sym = v.symbols[r.symbol];
        if (sym.type == 2 /*STT_FUNC*/) pending.push_back(sym.name);
        if (sym.type == 1 /*STT_OBJECT*/) objects.insert(r.symbol);
      }
    }
  }
}

} // namespace

Expected<CubinInfo> inspect_cubin(std::string_view elf) {
  auto view = read_elf(elf);
  if (!view) return view.error();
  CubinInfo info;
  info.sm = view->sm;
  for (const Symbol &sym : view->symbols) {
    const Section *sec = view->section(sym.shndx);
    if (!sec) continue;
    if (sym.type == 2 /*STT_FUNC*/ && sec->name == ".text." + sym.name && (sym.other & 0x10 /*STO_CUDA_ENTRY*/))
      info.kernels.push_back(sym.name);
    if (sym.type == 1 /*STT_OBJECT*/ && is_global_section(sec->name) && sym.size > 0)
      info.globals.push_back({sym.name, sec->name, sym.size});
  }
  return info;
}

namespace {

// Objects named by the relocations of `section` that `refs` reads (address
// table slots: a 64-bit address is read whole or as two 32-bit halves).
void add_address_slots(const ElfView &v, size_t section, const ConstantRefs &refs, std::set<uint32_t> &used) {
  int bank = constant_bank(v.sections[section].name);
  if (bank < 0) return;
  for (const Relocation &r : v.relocations[section]) {
    if (r.symbol >= v.symbols.size() || v.symbols[r.symbol].type != 1 /*STT_OBJECT*/) continue;
    unsigned b = static_cast<unsigned>(bank);
    if (refs.operands.count({b, r.offset}) || refs.operands.count({b, r.offset + 4})) used.insert(r.symbol);
  }
}

// Adds the objects that the initialised data of used objects points to.
void add_pointees(const ElfView &v, std::set<uint32_t> &used) {
  for (bool grew = true; grew;) {
    grew = false;
    for (uint32_t u : std::set<uint32_t>(used)) {
      const Symbol &sym = v.symbols[u];
      if (sym.shndx >= v.relocations.size()) continue;
      for (const Relocation &r : v.relocations[sym.shndx])
        if (r.offset >= sym.value && r.offset < sym.value + sym.size && r.symbol < v.symbols.size() &&
            v.symbols[r.symbol].type == 1 /*STT_OBJECT*/)
          grew = used.insert(r.symbol).second || grew;
    }
  }
}

} // namespace

Expected<std::set<std::string>> globals_kernel_may_use(std::string_view elf, const std::string &kernel) {
  auto view = read_elf(elf);
  if (!view) return view.error();
  std::set<size_t> texts;
  std::set<uint32_t> used;
  kernel_code(*view, kernel, texts, used);
  if (texts.empty()) return make_error("the cubin has no code for kernel " + kernel);
  ConstantRefs refs;
  for (size_t t : texts)
    scan_code(elf.substr(view->sections[t].offset, view->sections[t].size), refs);
  for (size_t i = 0; i < view->sections.size(); ++i)
    add_address_slots(*view, i, refs, used);
  for (uint32_t i = 0; i < view->symbols.size(); ++i) { // __constant__ data: by bank (indexed reads defeat offsets)
    const Symbol &sym = view->symbols[i];
    const Section *sec = view->section(sym.shndx);
    int bank = sec && sym.type == 1 /*STT_OBJECT*/ ? constant_bank(sec->name) : -1;
    if (bank >= 0 && refs.banks.count(static_cast<unsigned>(bank))) used.insert(i);
  }
  add_pointees(*view, used);
  std::set<std::string> names;
  for (uint32_t u : used)
    names.insert(view->symbols[u].name);
  return names;
}

bool is_compiler_generated_global(const std::string &name) { return !name.empty() && name[0] == '$'; }

std::string global_mismatch(const GlobalMismatch &m, const Expected<std::set<std::string>> &may_use) {
  if (is_compiler_generated_global(m.global)) return "";
  if (may_use && !may_use->count(m.global)) return "";
  return "global " + m.global + " of capture " + m.capture + " is " + std::to_string(m.captured_bytes) + " bytes but " +
         std::to_string(m.module_bytes) + " bytes in cubin " + m.cubin + ", and kernel " + m.kernel +
         (may_use ? " uses it" : " may use it (" + may_use.error().message + ")") +
         ": the cubin was not built from the captured program's source and flags";
}

} // namespace kbcc::gpu
