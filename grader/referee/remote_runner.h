/// @file grader/referee/remote_runner.h
/// @brief The referee's side of the channel: starts the runner (in the sandbox the grader names),
/// puts buffers, asks for calls, reads results back, and records what happened to the runner.
///
/// The runner's command comes from the environment, set by the grader:
///   CUDALABS_RUNNER          the command, a JSON array (the sandbox's prefix, then the runner)
///   CUDALABS_RUNNER_OUTPUT   file for the runner's own stdout and stderr (capped)
///   CUDALABS_RUNNER_TOOL     file for the sandbox's stdout and stderr: compute-sanitizer's or
///                            Nsight Compute's report when the command runs under one (capped)
///   CUDALABS_REFEREE_EVENTS  file of JSON lines: starts, exits, crashes, time limits, by test
///   CUDALABS_CALL_TIME_LIMIT seconds one request may take (default 300)
/// A runner that dies is started again for the next call; its death is an event the grader reads.
#pragma once

#include "grader/call.h"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace grader::referee {

/// How to start a runner and where its output goes.
struct RunnerSettings {
  std::vector<std::string> command;  ///< the sandbox's prefix, then the runner
  std::string output_log;            ///< the runner's own stdout and stderr (may be empty)
  std::string tool_log;              ///< the sandbox's stdout and stderr: the tool's report
  /// From CUDALABS_RUNNER, CUDALABS_RUNNER_OUTPUT, CUDALABS_RUNNER_TOOL (`prefix` replaces
  /// CUDALABS_RUNNER: e.g. CUDALABS_RUNNER_SOLUTION for the reference's runner).
  static RunnerSettings from_environment(const std::string& prefix = "CUDALABS_RUNNER");
};

/// What a put buffer holds on the runner's side: its id and size.
struct RemoteBuffer {
  std::int64_t id = kNullBuffer;
  std::size_t bytes = 0;
};

class RemoteRunner {
 public:
  /// The runner of this process (its command from the environment), started on first use; throws
  /// std::runtime_error when CUDALABS_RUNNER is not set.
  static RemoteRunner& shared();
  /// Stops the shared runner if it was ever made (the referee's last act: a tool's report is
  /// complete only once the runner has exited).
  static void stop_shared();

  /// A runner started (on first use) as `settings` say.
  explicit RemoteRunner(RunnerSettings settings);
  ~RemoteRunner();
  RemoteRunner(const RemoteRunner&) = delete;
  RemoteRunner& operator=(const RemoteRunner&) = delete;

  /// Copies `bytes` of host memory into a new device buffer whose data starts `align_offset`
  /// bytes past a 256-byte boundary, between two guards of random bytes.
  RemoteBuffer put(const void* host, std::size_t bytes, std::size_t align_offset);
  /// As put(), the bytes written by `write` straight into the arena (a device operand copied
  /// there without a host copy of its own).
  RemoteBuffer put_written(std::size_t bytes, std::size_t align_offset,
                           const std::function<void(std::uint8_t*)>& write);
  /// As put(), every byte 0xFF (an output's poison), set on the device: nothing crosses.
  RemoteBuffer put_poisoned(std::size_t bytes, std::size_t align_offset);
  /// As put(), the bytes a device-side copy of `bytes` of `of` from `byte_offset` (a window of a
  /// pool put once).
  RemoteBuffer put_slice(const RemoteBuffer& of, std::size_t byte_offset, std::size_t bytes,
                         std::size_t align_offset);
  /// A buffer that free_all() keeps: put once per runner under `key` (which must name its bytes:
  /// a pool and its seed), the same buffer for the same key until free_kept() or a new runner.
  RemoteBuffer put_kept(const std::string& key, const void* host, std::size_t bytes);
  /// The buffer's data; throws std::runtime_error when a guard changed (a write outside it).
  std::vector<std::uint8_t> get(const RemoteBuffer& buffer, const std::string& what);
  /// As get(), `use` reading the data where it lies in the arena, in one pass (a large result's
  /// check, without a copy of its own). The runner can write the arena at any time, as it could
  /// have written those bytes to the device before the get: what `use` reads is its result.
  void get_with(const RemoteBuffer& buffer, const std::string& what,
                const std::function<void(const std::uint8_t*)>& use);
  /// Frees every buffer but put_kept()'s.
  void free_all();
  /// Frees every buffer.
  void free_kept();
  /// Opens an NVTX range named `label` around the calls that follow (empty: closes it): the name a
  /// tool watching several probes in one runner gives each kernel.
  void range(const std::string& label);
  /// Answers a callback of the runner during a run: (kind, payload) -> reply bytes; runs on a
  /// thread of its own for each callback, so that callbacks made at once are served at once.
  using CallbackHandler =
      std::function<std::vector<std::uint8_t>(const std::string& kind, Reader& payload)>;

  /// Makes the calls, then waits for the device; each call's host result bytes. Mirrors the
  /// student's exceptions: std::invalid_argument for kInvalidArgument, std::runtime_error for the
  /// rest, each message naming what happened (a crash, a time limit, a missing variant).
  std::vector<std::vector<std::uint8_t>> run(const std::vector<Call>& calls,
                                             const CallbackHandler& callbacks = {});
  /// Closes the channel and waits for the runner to exit (the tool's report is complete then).
  void stop();
  /// The process id the runner reported (in its sandbox), 0 before it started.
  std::int64_t runner_pid() const { return runner_pid_; }
  /// Whether a runner process is up (a call that killed it, or a time limit, ends it).
  bool running() const { return process_ != nullptr; }

 private:
  struct Process;
  void ensure_started();
  // The data of `buffer` in the arena, its guards checked.
  const std::uint8_t* fetch(const RemoteBuffer& buffer, const std::string& what);
  RemoteBuffer put_from(PutSource source, std::size_t bytes, std::size_t align_offset,
                        const std::vector<std::int64_t>& slice);
  std::vector<std::uint8_t> request(Op op, const std::vector<std::uint8_t>& payload,
                                    const CallbackHandler* callbacks = nullptr);
  [[noreturn]] void died(const std::string& during, bool time_limit, const char* event = nullptr);

  RunnerSettings settings_;
  Process* process_ = nullptr;
  std::int64_t runner_pid_ = 0;
  std::uint64_t next_id_ = 1;
  std::uint64_t guard_seed_ = 0;
};

/// Names the test (or step) that later events belong to.
void set_event_context(const std::string& context);
/// Appends one event line to CUDALABS_REFEREE_EVENTS (when set): {"event", "test", "detail"}.
void record_event(const std::string& event, const std::string& detail);

}  // namespace grader::referee
