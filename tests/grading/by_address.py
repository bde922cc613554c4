"""Host code that reaches what it never names, for plants and tests of the runner's confinement: no
rule on the object can see it, so only the process's own confinement stops what it does.

FIND_BY_ADDRESS defines `planted::find_function(name)`: from memcpy's address back to the ELF
header of the module that holds it, then through the loader's list of modules (the program's
DT_DEBUG entry) to each module's dynamic symbols. With it, code that names only memcpy calls fopen,
dlopen or fork.

HIDDEN_SYSCALL defines `planted::hidden_syscall(number, a, b, c)`: a `syscall` instruction hidden in
the immediate of a `movabs` and reached by a jump into its middle, so that a disassembler reading
the code in order sees only the `movabs`.
"""

FIND_BY_ADDRESS = r"""
// ---- planted: functions reached by address, never named ----
#include <elf.h>
#include <link.h>
#include <cstdint>
#include <cstring>
namespace planted {
inline const unsigned char* module_start(std::uintptr_t address) {
  for (std::uintptr_t page = address & ~std::uintptr_t{4095};; page -= 4096) {
    const auto* bytes = reinterpret_cast<const unsigned char*>(page);
    if (bytes[0] == 0x7f && bytes[1] == 'E' && bytes[2] == 'L' && bytes[3] == 'F') return bytes;
  }
}
inline bool same_name(const char* a, const char* b) {
  while (*a != 0 && *a == *b) {
    ++a;
    ++b;
  }
  return *a == *b;
}
inline void* symbol_in(std::uintptr_t base, const ElfW(Dyn)* dynamic, const char* name) {
  const ElfW(Sym)* symbols = nullptr;
  const char* strings = nullptr;
  for (const ElfW(Dyn)* entry = dynamic; entry->d_tag != DT_NULL; ++entry) {
    const std::uintptr_t at = entry->d_un.d_ptr < base ? base + entry->d_un.d_ptr : entry->d_un.d_ptr;
    if (entry->d_tag == DT_SYMTAB) symbols = reinterpret_cast<const ElfW(Sym)*>(at);
    if (entry->d_tag == DT_STRTAB) strings = reinterpret_cast<const char*>(at);
  }
  if (symbols == nullptr || strings == nullptr || reinterpret_cast<const char*>(symbols) > strings) return nullptr;
  for (const ElfW(Sym)* symbol = symbols; reinterpret_cast<const char*>(symbol) < strings; ++symbol)
    if (symbol->st_shndx != SHN_UNDEF && ELF64_ST_TYPE(symbol->st_info) == STT_FUNC && symbol->st_value != 0 &&
        same_name(strings + symbol->st_name, name))
      return reinterpret_cast<void*>(base + symbol->st_value);
  return nullptr;
}
inline void* find_function(const char* name) {
  const auto* header =
      reinterpret_cast<const ElfW(Ehdr)*>(module_start(reinterpret_cast<std::uintptr_t>(&memcpy)));
  const auto* program = reinterpret_cast<const ElfW(Phdr)*>(reinterpret_cast<const char*>(header) + header->e_phoff);
  std::uintptr_t base = reinterpret_cast<std::uintptr_t>(header);
  for (int i = 0; i < header->e_phnum; ++i)
    if (program[i].p_type == PT_LOAD) {
      base -= program[i].p_vaddr;
      break;
    }
  const ElfW(Dyn)* dynamic = nullptr;
  for (int i = 0; i < header->e_phnum; ++i)
    if (program[i].p_type == PT_DYNAMIC) dynamic = reinterpret_cast<const ElfW(Dyn)*>(base + program[i].p_vaddr);
  if (dynamic == nullptr) return nullptr;
  for (const ElfW(Dyn)* entry = dynamic; entry->d_tag != DT_NULL; ++entry)
    if (entry->d_tag == DT_DEBUG && entry->d_un.d_ptr != 0) {
      for (const link_map* module = reinterpret_cast<const r_debug*>(entry->d_un.d_ptr)->r_map; module != nullptr;
           module = module->l_next)
        if (void* found = symbol_in(module->l_addr, module->l_ld, name)) return found;
      return nullptr;
    }
  return symbol_in(base, dynamic, name);
}
template <class Function>
Function function(const char* name) {
  return reinterpret_cast<Function>(find_function(name));
}
// Writes `text` into `path`, truncating it, with stdio's functions found by address: false when
// the file could not be opened.
inline bool overwrite(const char* path, const char* text) {
  auto open_file = function<void* (*)(const char*, const char*)>("fopen");
  auto put = function<int (*)(const char*, void*)>("fputs");
  auto close_file = function<int (*)(void*)>("fclose");
  if (open_file == nullptr || put == nullptr || close_file == nullptr) return false;
  void* file = open_file(path, "w");
  if (file == nullptr) return false;
  put(text, file);
  close_file(file);
  return true;
}
// Loads a library with dlopen found by address: whether it loaded.
inline bool loads(const char* library) {
  auto open_library = function<void* (*)(const char*, int)>("dlopen");
  return open_library != nullptr && open_library(library, 2 /* RTLD_NOW */) != nullptr;
}
// printf, found by address: says what happened, where the step's output goes.
template <class... Args>
void say(const char* format, Args... args) {
  auto print = function<int (*)(const char*, ...)>("printf");
  auto flush = function<int (*)(void*)>("fflush");
  if (print != nullptr) print(format, args...);
  if (flush != nullptr) flush(nullptr);
}
}  // namespace planted
"""

HIDDEN_SYSCALL = r"""
// ---- planted: a system call the disassembler does not show ----
namespace planted {
inline long hidden_syscall(long number, long a, long b, long c) {
  long result;
  // The bytes after 0x49 0xbb are a movabs's immediate to a reader that starts at the 0x49; a jump
  // to the third byte runs them as `syscall; jmp +4`, which lands after the movabs.
  asm volatile(
      "lea 2f(%%rip), %%r11\n\t"
      "add $2, %%r11\n\t"
      "jmp *%%r11\n\t"
      "2: .byte 0x49, 0xbb, 0x0f, 0x05, 0xeb, 0x04, 0x90, 0x90, 0x90, 0x90\n\t"
      : "=a"(result)
      : "a"(number), "D"(a), "S"(b), "d"(c)
      : "rcx", "r11", "memory");
  return result;
}
inline long length(const char* text) {
  long n = 0;
  while (text[n] != 0) ++n;
  return n;
}
// Truncates `path` and writes `text` into it by hidden system calls (openat, write): false when the
// file could not be opened.
inline bool overwrite_hidden(const char* path, const char* text) {
  const long fd = hidden_syscall(257 /* openat */, -100 /* AT_FDCWD */, long(path), 01 | 01000 | 0100);
  if (fd < 0) return false;
  hidden_syscall(1 /* write */, fd, long(text), length(text));
  return true;
}
}  // namespace planted
"""
