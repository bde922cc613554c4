// confine: puts the runner's process under Landlock rules, then executes the runner. The student's
// library is linked into the runner, so its static initialisers run before the runner's own main():
// the rules must already hold when the program starts, and Landlock's do, since they pass through
// execve and cannot be lifted. They are the kernel's, so they hold however the code reaches the
// kernel: a named call, a function found by address, or a system call of its own.
//
//   confine [--read PATH]... [--write DIR]... [--exec FILE] -- FILE ARG...
//   confine --probe      prints the Landlock ABI and exits 0 where the kernel enforces it
//
// What the process may do afterwards:
//   --read PATH    read PATH (a file, or everything beneath a folder); --read /proc reads the
//                  process's own /proc/self and every entry of /proc that is not another process's
//                  (no other process's command line, environment or memory map: not the watching
//                  tool's, which would tell a run under compute-sanitizer or Nsight Compute apart)
//   --write DIR    read, write, create and remove beneath DIR
//   FILE           execute FILE (and its ELF interpreter); nothing else can be executed
// Every other file-system access is refused (EACCES); a process under the rules cannot ptrace, read
// the memory of, or (on kernels with Landlock ABI 6) signal a process outside them. Inherited
// descriptors that could write a regular file outside the --write folders are closed before the
// rules are put on. Exit 2 with one line on stderr when the arguments are wrong or the kernel
// cannot enforce the rules.
#include <dirent.h>
#include <elf.h>
#include <fcntl.h>
#include <linux/landlock.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

// The rights of later ABIs, for headers older than the kernel.
constexpr std::uint64_t kRefer = 1ULL << 13;     // ABI 2
constexpr std::uint64_t kTruncate = 1ULL << 14;  // ABI 3
constexpr std::uint64_t kIoctlDev = 1ULL << 15;  // ABI 5

constexpr std::uint64_t kExecute = LANDLOCK_ACCESS_FS_EXECUTE;
constexpr std::uint64_t kRead = LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_READ_DIR;
// The rights a rule on a file (not a folder) may carry.
constexpr std::uint64_t kFileRights =
    kExecute | LANDLOCK_ACCESS_FS_WRITE_FILE | LANDLOCK_ACCESS_FS_READ_FILE | kTruncate | kIoctlDev;

// Signals to a process outside the rules are refused (ABI 6): the runner cannot kill the tool that
// watches it, which would leave no report. Network rights and abstract sockets stay unhandled: the
// sandbox has no network, and the tools talk to what they inject into the runner through sockets.
constexpr std::uint64_t kScopeSignal = 1ULL << 1;

struct RulesetAttr {
  std::uint64_t handled_access_fs;
  std::uint64_t handled_access_net;  // ABI 4
  std::uint64_t scoped;              // ABI 6
};

struct PathBeneathAttr {
  std::uint64_t allowed_access;
  std::int32_t parent_fd;
} __attribute__((packed));

int fail(const std::string& message) {
  std::fprintf(stderr, "confine: %s\n", message.c_str());
  return 2;
}

long landlock_abi() {
  return syscall(SYS_landlock_create_ruleset, nullptr, 0, LANDLOCK_CREATE_RULESET_VERSION);
}

// Every file-system right the running kernel's ABI knows: all of them are handled, so any right
// not granted by a rule is refused.
std::uint64_t handled_rights(long abi) {
  std::uint64_t rights = (LANDLOCK_ACCESS_FS_MAKE_SYM << 1) - 1;  // ABI 1: bits 0-12
  if (abi >= 2) rights |= kRefer;
  if (abi >= 3) rights |= kTruncate;
  if (abi >= 5) rights |= kIoctlDev;
  return rights;
}

struct Rule {
  std::string path;
  std::uint64_t rights;
};

// Adds one rule; a path that does not exist is skipped (a folder this system lacks).
bool add_rule(int ruleset, const Rule& rule, std::uint64_t handled, std::string& error) {
  const int fd = open(rule.path.c_str(), O_PATH | O_CLOEXEC);
  if (fd < 0) return errno == ENOENT || errno == ENOTDIR;
  struct stat info {};
  fstat(fd, &info);
  PathBeneathAttr attr{};
  attr.allowed_access = rule.rights & handled & (S_ISDIR(info.st_mode) ? ~0ULL : kFileRights);
  attr.parent_fd = fd;
  const long done = attr.allowed_access == 0 ? 0
                                             : syscall(SYS_landlock_add_rule, ruleset,
                                                       LANDLOCK_RULE_PATH_BENEATH, &attr, 0);
  const int saved = errno;
  close(fd);
  if (done != 0) error = "cannot add the rule for " + rule.path + ": " + std::strerror(saved);
  return done == 0;
}

// --read /proc, as rules: /proc/self (the process's own directory: confine executes the runner in
// this process) and each entry of /proc whose name is not a process id.
void add_proc_rules(std::vector<Rule>& rules, std::uint64_t rights) {
  rules.push_back({"/proc/self", rights});
  DIR* listing = opendir("/proc");
  if (listing == nullptr) return;
  while (const dirent* entry = readdir(listing)) {
    const std::string name = entry->d_name;
    if (name == "." || name == ".." || name == "self" || name == "thread-self") continue;
    if (name.find_first_not_of("0123456789") == std::string::npos) continue;  // a process
    rules.push_back({"/proc/" + name, rights});
  }
  closedir(listing);
}

// The ELF interpreter (PT_INTERP) of `file`, or "" for a static program.
std::string interpreter_of(const std::string& file) {
  FILE* stream = std::fopen(file.c_str(), "rb");
  if (stream == nullptr) return "";
  std::string found;
  Elf64_Ehdr header{};
  if (std::fread(&header, sizeof header, 1, stream) == 1 &&
      std::memcmp(header.e_ident, ELFMAG, SELFMAG) == 0 && header.e_ident[EI_CLASS] == ELFCLASS64) {
    for (int i = 0; i < header.e_phnum && found.empty(); ++i) {
      Elf64_Phdr program{};
      if (std::fseek(stream, static_cast<long>(header.e_phoff + i * header.e_phentsize),
                     SEEK_SET) != 0 ||
          std::fread(&program, sizeof program, 1, stream) != 1)
        break;
      if (program.p_type != PT_INTERP || program.p_filesz == 0 || program.p_filesz > 4096) continue;
      std::vector<char> path(program.p_filesz);
      if (std::fseek(stream, static_cast<long>(program.p_offset), SEEK_SET) == 0 &&
          std::fread(path.data(), 1, path.size(), stream) == path.size())
        found.assign(path.data(), strnlen(path.data(), path.size()));
    }
  }
  std::fclose(stream);
  return found;
}

bool beneath(const std::string& path, const std::vector<std::string>& folders) {
  for (const std::string& folder : folders)
    if (path.compare(0, folder.size(), folder) == 0 &&
        (path.size() == folder.size() || path[folder.size()] == '/'))
      return true;
  return false;
}

// Closes every inherited descriptor that could write a regular file outside `writable` (a tool's
// report opened by a parent and not marked close-on-exec): Landlock checks a file when it is
// opened, not each write through a descriptor opened before.
void close_writers(const std::vector<std::string>& writable) {
  DIR* listing = opendir("/proc/self/fd");
  if (listing == nullptr) return;
  std::vector<int> doomed;
  while (const dirent* entry = readdir(listing)) {
    const int fd = std::atoi(entry->d_name);
    if (fd < 3 || fd == dirfd(listing)) continue;
    const int flags = fcntl(fd, F_GETFL);
    struct stat info {};
    if (flags < 0 || (flags & O_ACCMODE) == O_RDONLY || fstat(fd, &info) != 0 ||
        !S_ISREG(info.st_mode))
      continue;
    char target[4096];
    const std::string link = "/proc/self/fd/" + std::string(entry->d_name);
    const ssize_t length = readlink(link.c_str(), target, sizeof target - 1);
    const std::string path =
        length > 0 ? std::string(target, static_cast<std::size_t>(length)) : "";
    if (path.rfind("/memfd:", 0) == 0 || beneath(path, writable)) continue;
    doomed.push_back(fd);
  }
  closedir(listing);
  for (const int fd : doomed) close(fd);
}

}  // namespace

int main(int argc, char** argv) {
  const long abi = landlock_abi();
  if (argc == 2 && std::strcmp(argv[1], "--probe") == 0) {
    if (abi < 1)
      return fail(std::string("Landlock is not enforced by this kernel (") + std::strerror(errno) +
                  ")");
    std::printf("landlock abi %ld\n", abi);
    return 0;
  }
  std::vector<Rule> rules;
  std::vector<std::string> writable;
  int first = 1;
  for (; first < argc; ++first) {
    const std::string flag = argv[first];
    if (flag == "--") break;
    if ((flag != "--read" && flag != "--write") || first + 1 >= argc)
      return fail("unknown argument '" + flag +
                  "' (usage: confine [--read PATH]... [--write DIR]... -- FILE ARG...)");
    const std::string path = argv[++first];
    if (path.empty() || path[0] != '/')
      return fail(flag + ": '" + path + "' is not an absolute path");
    if (flag == "--read" && path == "/proc") {
      add_proc_rules(rules, kRead);
    } else if (flag == "--read") {
      rules.push_back({path, kRead});
    } else {
      rules.push_back({path, ~kExecute});
      writable.push_back(path);
    }
  }
  if (first + 1 >= argc) return fail("no program after '--'");
  char** program = argv + first + 1;
  if (abi < 1)
    return fail(std::string("Landlock is not enforced by this kernel (") + std::strerror(errno) +
                "): the runner cannot be confined");
  rules.push_back({program[0], kExecute | LANDLOCK_ACCESS_FS_READ_FILE});
  if (const std::string interpreter = interpreter_of(program[0]); !interpreter.empty())
    rules.push_back({interpreter, kExecute | LANDLOCK_ACCESS_FS_READ_FILE});

  const std::uint64_t handled = handled_rights(abi);
  RulesetAttr attr{handled, 0, abi >= 6 ? kScopeSignal : 0};
  const std::size_t attr_size = abi >= 6   ? sizeof attr
                                : abi >= 4 ? 2 * sizeof(std::uint64_t)
                                           : sizeof(std::uint64_t);
  const int ruleset = static_cast<int>(syscall(SYS_landlock_create_ruleset, &attr, attr_size, 0));
  if (ruleset < 0)
    return fail(std::string("cannot create a Landlock ruleset: ") + std::strerror(errno));
  for (const Rule& rule : rules) {
    std::string error;
    if (!add_rule(ruleset, rule, handled, error)) return fail(error);
  }
  close_writers(writable);
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
    return fail(std::string("cannot set no_new_privs: ") + std::strerror(errno));
  if (syscall(SYS_landlock_restrict_self, ruleset, 0) != 0)
    return fail(std::string("cannot restrict itself: ") + std::strerror(errno));
  close(ruleset);
  execv(program[0], program);
  return fail(std::string("cannot execute ") + program[0] + ": " + std::strerror(errno));
}
