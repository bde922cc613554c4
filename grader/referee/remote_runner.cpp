#include "grader/referee/remote_runner.h"

#include "grader/arena.h"
#include "grader/pinned_arena.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <random>
#include <stdexcept>
#include <thread>

namespace grader::referee {

namespace {

constexpr std::size_t kLogCap = std::size_t{16} << 20;  // bytes kept of each output stream

std::string environment(const char* name) {
  const char* value = std::getenv(name);
  return value == nullptr ? std::string() : std::string(value);
}

std::mutex event_mutex;
std::string event_context;

// Copies a pipe into a file, keeping the first kLogCap bytes and dropping the rest, so that a
// runner that prints without end costs a bounded file.
void drain(int fd, std::string path) {
  std::ofstream file;
  if (!path.empty()) file.open(path, std::ios::app | std::ios::binary);
  std::size_t kept = 0;
  char chunk[65536];
  for (;;) {
    const ssize_t got = ::read(fd, chunk, sizeof chunk);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) break;
    if (file && kept < kLogCap) {
      const std::size_t take = std::min<std::size_t>(static_cast<std::size_t>(got), kLogCap - kept);
      file.write(chunk, static_cast<std::streamsize>(take));
      file.flush();
      kept += take;
      if (kept == kLogCap) file << "\n[grader: output past " << kLogCap << " bytes dropped]\n";
    }
  }
  ::close(fd);
}

std::string signal_name(int number) {
  const char* name = sigabbrev_np(number);
  return name != nullptr ? std::string("SIG") + name : "signal " + std::to_string(number);
}

std::string describe_exit(int status) {
  if (WIFSIGNALED(status)) return "killed by " + signal_name(WTERMSIG(status));
  if (WIFEXITED(status)) {
    const int code = WEXITSTATUS(status);
    // bubblewrap reports a child killed by signal N as exit 128 + N.
    if (code > 128 && code < 128 + 65) return "killed by " + signal_name(code - 128);
    if (code == 3) return "exited after a sticky CUDA error (exit 3)";
    return "exited with code " + std::to_string(code);
  }
  return "ended (status " + std::to_string(status) + ")";
}

}  // namespace

void record_event(const std::string& event, const std::string& detail) {
  const std::string path = environment("CUDALABS_REFEREE_EVENTS");
  if (path.empty()) return;
  std::lock_guard<std::mutex> lock(event_mutex);
  nlohmann::json line = {{"event", event}, {"test", event_context}, {"detail", detail}};
  std::ofstream(path, std::ios::app) << line.dump() << "\n";
}

void set_event_context(const std::string& context) {
  std::lock_guard<std::mutex> lock(event_mutex);
  event_context = context;
}

struct RemoteRunner::Process {
  pid_t pid = -1;
  int requests = -1;  // we write
  int replies = -1;   // we read
  std::thread output_drain, tool_drain;
  struct Guard {
    std::vector<std::uint8_t> pattern;
    std::size_t offset = 0;
  };
  std::map<std::int64_t, Guard> guards;      // each buffer's guard pattern and misalignment
  Arena arena = Arena::create();             // the operands' bytes, both ways (grader/arena.h)
  std::map<std::string, RemoteBuffer> kept;  // put_kept's buffers by key, kept by free_all
};

RunnerSettings RunnerSettings::from_environment(const std::string& prefix) {
  RunnerSettings settings;
  const std::string text = environment(prefix.c_str());
  if (text.empty())
    throw std::runtime_error(
        prefix + " is not set: the grader starts the referee with the runner's command");
  try {
    for (const auto& item : nlohmann::json::parse(text))
      settings.command.push_back(item.get<std::string>());
  } catch (const std::exception& error) {
    throw std::runtime_error(prefix + " is not a JSON array of strings: " + error.what());
  }
  if (settings.command.empty()) throw std::runtime_error(prefix + " is an empty command");
  settings.output_log = environment((prefix + "_OUTPUT").c_str());
  settings.tool_log = environment((prefix + "_TOOL").c_str());
  return settings;
}

namespace {
RemoteRunner* shared_runner = nullptr;
}

RemoteRunner& RemoteRunner::shared() {
  // The environment is read at the first use, not at start-up: --gtest_list_tests needs no runner.
  static RemoteRunner runner{RunnerSettings::from_environment()};
  shared_runner = &runner;
  return runner;
}

void RemoteRunner::stop_shared() {
  if (shared_runner != nullptr) shared_runner->stop();
}

RemoteRunner::RemoteRunner(RunnerSettings settings) : settings_(std::move(settings)) {
  std::random_device device;
  guard_seed_ = (std::uint64_t{device()} << 32) ^ device();
}

RemoteRunner::~RemoteRunner() {
  try {
    stop();
  } catch (...) {
  }
}

void RemoteRunner::ensure_started() {
  if (process_ != nullptr) return;
  std::vector<std::string> argv = settings_.command;
  if (argv.empty()) throw std::runtime_error("no runner command");
  auto process = std::make_unique<Process>();
  pin_arena(process->arena);
  int requests[2], replies[2], output[2], tool[2];
  if (pipe2(requests, O_CLOEXEC) || pipe2(replies, O_CLOEXEC) || pipe2(output, O_CLOEXEC) ||
      pipe2(tool, O_CLOEXEC))
    throw std::runtime_error(std::string("pipe: ") + std::strerror(errno));
  std::vector<char*> args;
  for (std::string& arg : argv) args.push_back(arg.data());
  args.push_back(nullptr);
  const pid_t pid = fork();
  if (pid < 0) throw std::runtime_error(std::string("fork: ") + std::strerror(errno));
  if (pid == 0) {
    // The child: its own process group (killed whole), the tool's output on 1 and 2, the channel
    // on 3 and 4, its own output on 5, the arena on 6; nothing else of ours stays open. Each is
    // first moved above the targets, so that no dup2 overwrites one still to be moved.
    setpgid(0, 0);
    const int from[] = {tool[1], tool[1], requests[0], replies[1], output[1], process->arena.fd()};
    int high[6];
    for (int i = 0; i < 6; ++i) high[i] = fcntl(from[i], F_DUPFD_CLOEXEC, 64);
    for (int i = 0; i < 6; ++i) {
      dup2(high[i], i + 1);
      fcntl(i + 1, F_SETFD, 0);  // dup2 onto the same number would keep close-on-exec
    }
    for (int fd = 7; fd < 1024; ++fd) ::close(fd);
    execvp(args[0], args.data());
    const std::string message =
        std::string("runner: cannot start ") + args[0] + ": " + std::strerror(errno) + "\n";
    (void)!::write(2, message.data(), message.size());
    _exit(127);
  }
  ::close(requests[0]);
  ::close(replies[1]);
  ::close(output[1]);
  ::close(tool[1]);
  process_ = process.release();
  process_->pid = pid;
  process_->requests = requests[1];
  process_->replies = replies[0];
  process_->output_drain = std::thread(drain, output[0], settings_.output_log);
  process_->tool_drain = std::thread(drain, tool[0], settings_.tool_log);
  record_event("started", argv.back());
  const std::vector<std::uint8_t> hello = request(Op::kHello, {});
  Reader in(hello);
  in.u32();
  runner_pid_ = in.i64();
}

void RemoteRunner::died(const std::string& during, bool time_limit, const char* event) {
  Process* process = process_;
  process_ = nullptr;
  ::close(process->requests);
  if (time_limit) kill(-process->pid, SIGKILL);
  int status = 0;
  // A runner that closed the channel exits by itself; give it a moment, then end it.
  for (int i = 0; i < 100 && waitpid(process->pid, &status, WNOHANG) == 0; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  if (waitpid(process->pid, &status, WNOHANG) == 0) {
    kill(-process->pid, SIGKILL);
    waitpid(process->pid, &status, 0);
  }
  ::close(process->replies);
  process->output_drain.join();
  process->tool_drain.join();
  delete process;
  const std::string how =
      time_limit ? "exceeded the time limit of one call" : describe_exit(status);
  record_event(event != nullptr ? event
               : time_limit     ? "time limit"
                                : "crashed",
               during + ": " + how);
  throw std::runtime_error("the runner (the submission's code) " + how + " during " + during);
}

std::vector<std::uint8_t> RemoteRunner::request(Op op, const std::vector<std::uint8_t>& payload,
                                                const CallbackHandler* callbacks) {
  static const long long limit_ms = [] {
    const std::string text = environment("CUDALABS_CALL_TIME_LIMIT");
    return text.empty() ? 300000LL : static_cast<long long>(std::atof(text.c_str()) * 1000.0);
  }();
  const char* what = op == Op::kRun   ? "a call"
                     : op == Op::kPut ? "a buffer upload"
                     : op == Op::kGet ? "a buffer download"
                                      : "a request";
  std::mutex write_mutex;
  std::vector<std::thread> serving;
  auto join_all = [&serving] {
    for (std::thread& thread : serving) thread.join();
    serving.clear();
  };
  try {
    send_message(process_->requests, op, payload);
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(limit_ms);
    for (;;) {
      const long long left = std::chrono::duration_cast<std::chrono::milliseconds>(
                                 deadline - std::chrono::steady_clock::now())
                                 .count();
      Message reply = receive_message(process_->replies, kMaxPayload, std::max(left, 0LL));
      if (reply.op == Op::kReply) {
        join_all();
        return std::move(reply.payload);
      }
      if (reply.op != Op::kCallback || callbacks == nullptr || !*callbacks)
        throw ChannelError("malformed reply");
      // A callback: served on a thread of its own, answered under the write lock.
      serving.emplace_back(
          [this, callbacks, &write_mutex, message = std::move(reply.payload)]() mutable {
            Writer out;
            Reader in(message);
            std::int64_t tag = -1;
            try {
              tag = in.i64();
              const std::string kind = in.str(256);
              const auto [data, size] = in.bytes();
              Reader body(data, size);
              const std::vector<std::uint8_t> answer = (*callbacks)(kind, body);
              out.i64(tag);
              out.u32(static_cast<std::uint32_t>(Status::kOk));
              out.str("");
              out.bytes(answer.data(), answer.size());
            } catch (const std::exception& error) {
              out = Writer();
              out.i64(tag);
              out.u32(static_cast<std::uint32_t>(Status::kError));
              out.str(error.what());
              out.bytes(nullptr, 0);
            }
            std::lock_guard<std::mutex> lock(write_mutex);
            try {
              send_message(process_->requests, Op::kCallbackReply, out.data());
            } catch (const ChannelError&) {
            }
          });
    }
  } catch (const ChannelError& error) {
    // The serving threads end on their own (their writes fail once the runner is gone).
    if (is_time_limit(error)) kill(-process_->pid, SIGKILL);
    join_all();
    died(what, is_time_limit(error));
  }
  return {};
}

RemoteBuffer RemoteRunner::put(const void* host, std::size_t bytes, std::size_t align_offset) {
  return put_written(bytes, align_offset, [&](std::uint8_t* data) {
    if (bytes > 0) std::memcpy(data, host, bytes);
  });
}

RemoteBuffer RemoteRunner::put_written(std::size_t bytes, std::size_t align_offset,
                                       const std::function<void(std::uint8_t*)>& write) {
  ensure_started();
  write(process_->arena.reserve(bytes));
  return put_from(PutSource::kArena, bytes, align_offset, {});
}

RemoteBuffer RemoteRunner::put_poisoned(std::size_t bytes, std::size_t align_offset) {
  return put_from(PutSource::kPoisoned, bytes, align_offset, {});
}

RemoteBuffer RemoteRunner::put_slice(const RemoteBuffer& of, std::size_t byte_offset,
                                     std::size_t bytes, std::size_t align_offset) {
  if (byte_offset > of.bytes || bytes > of.bytes - byte_offset)
    throw std::logic_error("put_slice: bytes past the end of buffer " + std::to_string(of.id));
  return put_from(PutSource::kSlice, bytes, align_offset,
                  {of.id, static_cast<std::int64_t>(byte_offset)});
}

RemoteBuffer RemoteRunner::put_kept(const std::string& key, const void* host, std::size_t bytes) {
  ensure_started();
  if (auto found = process_->kept.find(key); found != process_->kept.end()) return found->second;
  const RemoteBuffer buffer = put(host, bytes, 0);
  process_->kept[key] = buffer;
  return buffer;
}

RemoteBuffer RemoteRunner::put_from(PutSource source, std::size_t bytes, std::size_t align_offset,
                                    const std::vector<std::int64_t>& slice) {
  ensure_started();
  const std::int64_t id = static_cast<std::int64_t>(next_id_++);
  std::vector<std::uint8_t> pattern(kGuardBytes);
  std::mt19937_64 random(guard_seed_ ^ (0x9e3779b97f4a7c15ull * static_cast<std::uint64_t>(id)));
  for (auto& byte : pattern) byte = static_cast<std::uint8_t>(random());
  Writer out;
  out.i64(id);
  out.i64(static_cast<std::int64_t>(align_offset % 256));
  out.bytes(pattern.data(), pattern.size());
  out.u32(static_cast<std::uint32_t>(source));
  out.i64(static_cast<std::int64_t>(bytes));
  for (std::int64_t value : slice) out.i64(value);
  const std::vector<std::uint8_t> reply = request(Op::kPut, out.data());
  Reader in(reply);
  if (static_cast<Status>(in.u32()) != Status::kOk)
    throw std::runtime_error("the runner could not allocate a buffer of " + std::to_string(bytes) +
                             " bytes: " + in.str());
  process_->guards[id] = {std::move(pattern), align_offset % 256};
  return {id, bytes};
}

const std::uint8_t* RemoteRunner::fetch(const RemoteBuffer& buffer, const std::string& what) {
  if (process_ == nullptr)
    throw std::runtime_error("the runner is gone: " + what + " was lost with it");
  const std::size_t expected = kGuardBytes + buffer.bytes + kGuardBytes;
  process_->arena.reserve(expected);
  Writer out;
  out.i64(buffer.id);
  const std::vector<std::uint8_t> reply = request(Op::kGet, out.data());
  Reader in(reply);
  if (static_cast<Status>(in.u32()) != Status::kOk)
    throw std::runtime_error("the runner could not read back " + what + ": " + in.str());
  if (in.i64() != static_cast<std::int64_t>(expected))
    throw std::runtime_error("malformed reply reading back " + what);
  const std::uint8_t* front = process_->arena.reserve(expected);
  // put() filled the offset + 256 bytes before the data with pattern[i % 256] and the 256 after
  // it with pattern[i]: any difference is a write outside the buffer.
  const Process::Guard& guard = process_->guards.at(buffer.id);
  const std::uint8_t* back = front + kGuardBytes + buffer.bytes;
  std::size_t before = 0, after = 0;
  for (std::size_t i = 0; i < kGuardBytes; ++i) {
    before += front[i] != guard.pattern[(guard.offset + i) % kGuardBytes];
    after += back[i] != guard.pattern[i];
  }
  if (before + after > 0) {
    throw std::runtime_error(what + ": " + std::to_string(before) + " bytes just before it and " +
                             std::to_string(after) +
                             " just after it were changed (a write outside it)");
  }
  return front + kGuardBytes;
}

std::vector<std::uint8_t> RemoteRunner::get(const RemoteBuffer& buffer, const std::string& what) {
  const std::uint8_t* data = fetch(buffer, what);
  return {data, data + buffer.bytes};
}

void RemoteRunner::get_with(const RemoteBuffer& buffer, const std::string& what,
                            const std::function<void(const std::uint8_t*)>& use) {
  use(fetch(buffer, what));
}

void RemoteRunner::free_all() {
  if (process_ == nullptr) return;
  Writer out;
  out.u32(static_cast<std::uint32_t>(process_->kept.size()));
  for (const auto& [key, buffer] : process_->kept) out.i64(buffer.id);
  request(Op::kFreeAll, out.data());
  for (auto it = process_->guards.begin(); it != process_->guards.end();) {
    bool kept = false;
    for (const auto& [key, buffer] : process_->kept) kept = kept || buffer.id == it->first;
    it = kept ? std::next(it) : process_->guards.erase(it);
  }
}

void RemoteRunner::range(const std::string& label) {
  ensure_started();
  Writer out;
  out.str(label);
  request(Op::kRange, out.data());
}

void RemoteRunner::free_kept() {
  if (process_ == nullptr) return;
  process_->kept.clear();
  free_all();
}

std::vector<std::vector<std::uint8_t>> RemoteRunner::run(const std::vector<Call>& calls,
                                                         const CallbackHandler& callbacks) {
  ensure_started();
  Writer out;
  out.u32(static_cast<std::uint32_t>(calls.size()));
  for (const Call& call : calls) call.write(out);
  const std::vector<std::uint8_t> reply = request(Op::kRun, out.data(), &callbacks);
  Reader in(reply);
  const auto status = static_cast<Status>(in.u32());
  const std::string message = in.str();
  const std::int64_t index = in.i64();
  if (status == Status::kOk) {
    std::vector<std::vector<std::uint8_t>> results(in.u32());
    for (auto& result : results) {
      const auto [data, size] = in.bytes();
      result.assign(data, data + size);
    }
    return results;
  }
  const std::string which = index >= 0 && index < static_cast<std::int64_t>(calls.size())
                                ? calls[index].label()
                                : "the calls";
  switch (status) {
    case Status::kInvalidArgument:
      throw std::invalid_argument(message);
    case Status::kMissing:
      throw std::runtime_error(message);
    case Status::kCudaFault: {
      // The runner exits after such a reply; reap it now so the next call starts a fresh one.
      try {
        died(which + " (" + message + ")", false, "cuda fault");
      } catch (const std::runtime_error&) {
      }
      throw std::runtime_error(which + ": CUDA error " + message + " (the context was lost)");
    }
    case Status::kProtocol:
      throw std::logic_error("grader protocol error in " + which + ": " + message);
    default:
      throw std::runtime_error(message);
  }
}

void RemoteRunner::stop() {
  if (process_ == nullptr) return;
  Process* process = process_;
  process_ = nullptr;
  ::close(process->requests);
  int status = 0;
  bool ended = false;
  for (int i = 0; i < 1200 && !ended; ++i) {  // a tool may write its report for a while
    ended = waitpid(process->pid, &status, WNOHANG) == process->pid;
    if (!ended) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  if (!ended) {
    kill(-process->pid, SIGKILL);
    waitpid(process->pid, &status, 0);
  }
  ::close(process->replies);
  process->output_drain.join();
  process->tool_drain.join();
  delete process;
  record_event(ended && WIFEXITED(status) && WEXITSTATUS(status) == 0 ? "exited" : "ended badly",
               describe_exit(status));
}

}  // namespace grader::referee
