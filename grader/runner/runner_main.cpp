// The runner's loop: requests on fd 3, replies on fd 4, its own output on fd 5, the operands'
// arena on fd 6 (grader/arena.h). The sandbox's stdout stays the tool's: compute-sanitizer's or
// Nsight Compute's report. Every CUDA call of the runner's own is checked; a sticky CUDA error ends
// the process after its reply.
#include "grader/arena.h"
#include "grader/call.h"
#include "grader/channel.h"
#include "grader/pinned_arena.h"
#include "grader/runner/runner.h"

#include <fcntl.h>
#include <nvtx3/nvToolsExt.h>
#include <unistd.h>

#include <condition_variable>
#include <csignal>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

namespace grader::runner {

namespace {

constexpr int kRequests = 3, kReplies = 4, kOwnOutput = 5;
constexpr int kExitCudaFault = 3;

struct Buffer {
  void* base = nullptr;    // the allocation: guard, offset, data, guard
  std::size_t offset = 0;  // bytes between the front guard and the data (the misalignment)
  std::size_t size = 0;    // bytes of data
  std::uint8_t* data() const { return static_cast<std::uint8_t*>(base) + kGuardBytes + offset; }
};

// CUDA is touched only when a request needs it, so that host-only calls (lab 10's split) run on a
// machine without a GPU.
class RunnerState : public Context {
 public:
  RunnerState() { pin_arena(arena_); }

  void* buffer(std::int64_t id) const override {
    if (id == kNullBuffer) return nullptr;
    if (id == kDummyBuffer) {
      if (dummy_ == nullptr) check(cudaMalloc(&dummy_, 4096), "cudaMalloc (dummy buffer)");
      return dummy_;
    }
    const auto found = buffers_.find(id);
    if (found == buffers_.end()) throw ChannelError("no buffer " + std::to_string(id));
    return found->second.data();
  }
  cudaStream_t stream() const override {
    if (stream_ == nullptr) check(cudaStreamCreate(&stream_), "cudaStreamCreate");
    return stream_;
  }

  void set_result(std::vector<std::uint8_t> bytes) override { result_ = std::move(bytes); }
  std::vector<std::uint8_t> take_result() { return std::exchange(result_, {}); }

  // Sends the callback, then waits for the reply with its tag. The threads waiting take turns
  // reading the channel (one reads while the others wait), so nobody reads it once no callback is
  // outstanding: the main loop reads the next request after the call returns.
  std::vector<std::uint8_t> callback(const std::string& kind,
                                     const std::vector<std::uint8_t>& payload) override {
    std::uint64_t tag;
    {
      std::lock_guard<std::mutex> lock(state_mutex_);
      tag = next_tag_++;
    }
    {
      Writer out;
      out.i64(static_cast<std::int64_t>(tag));
      out.str(kind);
      out.bytes(payload.data(), payload.size());
      std::lock_guard<std::mutex> lock(write_mutex_);
      send_message(kReplies, Op::kCallback, out.data());
    }
    std::unique_lock<std::mutex> lock(state_mutex_);
    for (;;) {
      if (auto found = arrived_.find(tag); found != arrived_.end()) {
        Message reply = std::move(found->second);
        arrived_.erase(found);
        Reader in(reply.payload);
        in.i64();
        const auto status = static_cast<Status>(in.u32());
        const std::string message = in.str();
        const auto [data, size] = in.bytes();
        if (status != Status::kOk)
          throw std::runtime_error(kind + " refused by the referee: " + message);
        return {data, data + size};
      }
      if (!reading_) {
        reading_ = true;
        lock.unlock();
        Message message;
        try {
          message = receive_message(kRequests);
        } catch (...) {
          lock.lock();
          reading_ = false;
          cv_.notify_all();
          throw;
        }
        lock.lock();
        reading_ = false;
        if (message.op != Op::kCallbackReply)
          throw ChannelError("a request arrived while a callback waited");
        Reader peek(message.payload);
        arrived_[static_cast<std::uint64_t>(peek.i64())] = std::move(message);
        cv_.notify_all();
        continue;
      }
      cv_.wait(lock);
    }
  }

  // id, alignment offset, guard pattern, source, bytes, then for a slice: its buffer and offset.
  void put(Reader& in) {
    const std::int64_t id = in.i64();
    const std::int64_t offset = in.i64();
    const auto [pattern, pattern_size] = in.bytes(kGuardBytes);
    const auto source = static_cast<PutSource>(in.u32());
    const std::int64_t size = in.i64();
    if (id < 0 || offset < 0 || offset >= 256 || pattern_size != kGuardBytes || size < 0 ||
        static_cast<std::uint64_t>(size) > kMaxPayload)
      throw ChannelError("malformed put");
    const std::uint8_t* from = nullptr;
    if (source == PutSource::kArena) {
      from = arena_.view(static_cast<std::size_t>(size));
    } else if (source == PutSource::kSlice) {
      const std::int64_t of = in.i64(), at = in.i64();
      const auto found = buffers_.find(of);
      if (found == buffers_.end() || of == id || at < 0 ||
          static_cast<std::uint64_t>(at) + static_cast<std::uint64_t>(size) > found->second.size)
        throw ChannelError("malformed put: no such slice");
      from = found->second.data() + at;
    } else if (source != PutSource::kPoisoned) {
      throw ChannelError("malformed put: unknown source");
    }
    release(id);
    touched_ = true;
    Buffer buffer;
    buffer.offset = static_cast<std::size_t>(offset);
    buffer.size = static_cast<std::size_t>(size);
    check(cudaMalloc(&buffer.base, kGuardBytes + buffer.offset + buffer.size + kGuardBytes),
          "cudaMalloc");
    buffers_[id] = buffer;
    std::vector<std::uint8_t> front(kGuardBytes + buffer.offset);
    for (std::size_t i = 0; i < front.size(); ++i) front[i] = pattern[i % kGuardBytes];
    check(cudaMemcpy(buffer.base, front.data(), front.size(), cudaMemcpyHostToDevice),
          "cudaMemcpy (guard)");
    if (buffer.size > 0) {
      if (source == PutSource::kArena)
        check(cudaMemcpy(buffer.data(), from, buffer.size, cudaMemcpyHostToDevice),
              "cudaMemcpy (data)");
      else if (source == PutSource::kSlice)
        check(cudaMemcpy(buffer.data(), from, buffer.size, cudaMemcpyDeviceToDevice),
              "cudaMemcpy (slice)");
      else
        check(cudaMemset(buffer.data(), 0xFF, buffer.size), "cudaMemset (poison)");
    }
    check(cudaMemcpy(buffer.data() + buffer.size, pattern, kGuardBytes, cudaMemcpyHostToDevice),
          "cudaMemcpy (guard)");
    // A device-side copy or fill may still run when cudaMemcpy/cudaMemset return: finished here,
    // it is never inside the time of the calls that follow.
    if (source != PutSource::kArena) check(cudaDeviceSynchronize(), "cudaDeviceSynchronize (put)");
  }

  // Front guard, data, back guard, into the arena (the referee sized it).
  std::vector<std::uint8_t> get(std::int64_t id) {
    const auto found = buffers_.find(id);
    if (found == buffers_.end())
      throw ChannelError("malformed get: no buffer " + std::to_string(id));
    const Buffer& buffer = found->second;
    const std::size_t bytes = kGuardBytes + buffer.size + kGuardBytes;
    check(
        cudaMemcpy(arena_.view(bytes), buffer.data() - kGuardBytes, bytes, cudaMemcpyDeviceToHost),
        "cudaMemcpy (get)");
    Writer out;
    out.u32(static_cast<std::uint32_t>(Status::kOk));
    out.i64(static_cast<std::int64_t>(bytes));
    return out.data();
  }

  // Every buffer but those the referee keeps (count, ids).
  void free_all(Reader& in) {
    const std::uint32_t count = in.u32();
    std::set<std::int64_t> kept;
    for (std::uint32_t i = 0; i < count; ++i) kept.insert(in.i64());
    for (auto it = buffers_.begin(); it != buffers_.end();) {
      if (kept.count(it->first) != 0) {
        ++it;
        continue;
      }
      cudaFree(it->second.base);
      it = buffers_.erase(it);
    }
  }
  // Whether anything of this runner touched the GPU (a put, the stream, the dummy buffer).
  bool used_cuda() const { return stream_ != nullptr || dummy_ != nullptr || touched_; }

 private:
  void release(std::int64_t id) {
    const auto found = buffers_.find(id);
    if (found == buffers_.end()) return;
    cudaFree(found->second.base);
    buffers_.erase(found);
  }
  static void check(cudaError_t status, const char* what) {
    if (status != cudaSuccess)
      throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(status));
  }

  mutable cudaStream_t stream_ = nullptr;
  mutable void* dummy_ = nullptr;
  std::map<std::int64_t, Buffer> buffers_;
  Arena arena_ = Arena::adopt(kArenaFd);
  bool touched_ = false;
  std::vector<std::uint8_t> result_;
  std::mutex write_mutex_, state_mutex_;
  std::condition_variable cv_;
  bool reading_ = false;
  std::uint64_t next_tag_ = 1;
  std::map<std::uint64_t, Message> arrived_;

 public:
  std::mutex& write_mutex() { return write_mutex_; }
};

std::vector<std::uint8_t> status_reply(Status status, const std::string& message,
                                       std::int64_t call_index = -1,
                                       const std::vector<std::vector<std::uint8_t>>& results = {}) {
  Writer out;
  out.u32(static_cast<std::uint32_t>(status));
  out.str(message.size() > 4000 ? message.substr(0, 4000) : message);
  out.i64(call_index);
  out.u32(static_cast<std::uint32_t>(results.size()));
  for (const auto& result : results) out.bytes(result.data(), result.size());
  return out.data();
}

const Handler* find_handler(const std::string& function) {
  for (const Handler& handler : lab_handlers())
    if (function == handler.function) return &handler;
  return nullptr;
}

// A sticky error survives cudaGetLastError: the context is lost.
bool sticky(cudaError_t status) {
  if (status == cudaSuccess) return false;
  (void)cudaGetLastError();
  return cudaDeviceSynchronize() != cudaSuccess;
}

// Runs the calls in order, then synchronizes once. Returns the reply and whether to exit.
std::pair<std::vector<std::uint8_t>, bool> run(RunnerState& state, Reader& in) {
  const std::uint32_t count = in.u32();
  if (count == 0 || count > 4096) throw ChannelError("malformed run");
  std::vector<Call> calls;
  for (std::uint32_t i = 0; i < count; ++i) calls.push_back(Call::read(in));
  std::vector<std::vector<std::uint8_t>> results;
  // The puts' copies from pageable memory may still be landing: the calls see whole operands on
  // whatever stream the student's code launches.
  if (state.used_cuda()) {
    if (const cudaError_t status = cudaDeviceSynchronize(); sticky(status))
      return {status_reply(Status::kCudaFault, cudaGetErrorString(status), 0), true};
  }
  for (std::size_t i = 0; i < calls.size(); ++i) {
    const Handler* handler = find_handler(calls[i].function);
    if (handler == nullptr)
      return {status_reply(Status::kProtocol, "no handler for " + calls[i].function, i), false};
    try {
      handler->run(calls[i], state);
      results.push_back(state.take_result());
    } catch (const ChannelError& error) {
      return {status_reply(Status::kProtocol, error.what(), i), false};
    } catch (const Missing& error) {
      return {status_reply(Status::kMissing, error.what(), i), false};
    } catch (const std::invalid_argument& error) {
      return {status_reply(Status::kInvalidArgument, error.what(), i), false};
    } catch (const std::exception& error) {
      if (state.used_cuda()) {
        const cudaError_t status = cudaDeviceSynchronize();
        if (sticky(status))
          return {status_reply(Status::kCudaFault, cudaGetErrorString(status), i), true};
      }
      return {status_reply(Status::kError, error.what(), i), false};
    } catch (...) {
      return {status_reply(Status::kError, "an exception that is not a std::exception", i), false};
    }
    // A launch error the student's code did not check for is still an error of this call.
    if (const cudaError_t launch = state.used_cuda() ? cudaGetLastError() : cudaSuccess;
        launch != cudaSuccess) {
      if (sticky(launch))
        return {status_reply(Status::kCudaFault, cudaGetErrorString(launch), i), true};
      return {status_reply(Status::kError,
                           std::string("launch failed: ") + cudaGetErrorString(launch), i),
              false};
    }
  }
  if (!state.used_cuda()) return {status_reply(Status::kOk, "", -1, results), false};
  const cudaError_t status = cudaDeviceSynchronize();
  if (status != cudaSuccess) {
    const bool lost = sticky(status);
    return {status_reply(lost ? Status::kCudaFault : Status::kError, cudaGetErrorString(status),
                         static_cast<std::int64_t>(calls.size()) - 1),
            lost};
  }
  return {status_reply(Status::kOk, "", -1, results), false};
}

}  // namespace
}  // namespace grader::runner

int main() {
  using namespace grader;
  using namespace grader::runner;
  std::signal(SIGPIPE, SIG_IGN);
  // The runner's own output (the student's printf too) goes to its own log, so that the sandbox's
  // stdout carries only the tool's report.
  if (fcntl(kOwnOutput, F_GETFD) != -1) {
    dup2(kOwnOutput, 1);
    dup2(kOwnOutput, 2);
    close(kOwnOutput);
  }
  if (fcntl(kRequests, F_GETFD) == -1 || fcntl(kReplies, F_GETFD) == -1) {
    const char* message =
        "runner: no channel on file descriptors 3 and 4 (the grader's referee starts runners)\n";
    (void)!write(2, message, std::strlen(message));
    return 2;
  }
  auto state = std::make_unique<RunnerState>();  // touches CUDA only when a request needs it
  for (;;) {
    Message request;
    try {
      request = receive_message(kRequests);
    } catch (const ChannelError&) {
      return 0;  // the referee closed the channel: done
    }
    std::vector<std::uint8_t> reply;
    bool exit_after = false;
    try {
      Reader in(request.payload);
      switch (request.op) {
        case Op::kHello: {
          Writer out;
          out.u32(static_cast<std::uint32_t>(Status::kOk));
          out.i64(static_cast<std::int64_t>(getpid()));
          reply = out.data();
          break;
        }
        case Op::kPut:
          state->put(in);
          reply = status_reply(Status::kOk, "");
          break;
        case Op::kGet:
          reply = state->get(in.i64());
          break;
        case Op::kFreeAll:
          state->free_all(in);
          reply = status_reply(Status::kOk, "");
          break;
        case Op::kRun:
          std::tie(reply, exit_after) = run(*state, in);
          break;
        case Op::kRange: {
          // The calls run on this thread, inside the range: a kernel another thread launches, or
          // one launched after the range closes, is outside every probe's.
          const std::string label = in.str(256);
          if (label.empty())
            nvtxRangePop();
          else
            nvtxRangePushA(label.c_str());
          reply = status_reply(Status::kOk, "");
          break;
        }
        default:
          reply = status_reply(Status::kProtocol, "unknown operation");
      }
    } catch (const ChannelError& error) {
      reply = status_reply(Status::kProtocol, error.what());
    } catch (const std::exception& error) {
      // The runner's own CUDA calls (buffers): a lost context ends it.
      const bool lost = state->used_cuda() && sticky(cudaDeviceSynchronize());
      reply = status_reply(lost ? Status::kCudaFault : Status::kError, error.what());
      exit_after = lost;
    }
    try {
      std::lock_guard<std::mutex> lock(state->write_mutex());
      send_message(kReplies, Op::kReply, reply);
    } catch (const ChannelError&) {
      return 0;
    }
    if (exit_after) return kExitCudaFault;
  }
}
