#include "labs/10_multi_gpu_dcgan/node_output.h"

#include "common/dcgan_model.h"

#include <stdexcept>
#include <string>

namespace lab10 {

namespace {

void require(int code, const char* call) {
  if (code == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  MPI_Error_string(code, text, &length);
  throw std::runtime_error(std::string(call) + ": " + std::string(text, length) +
                           " (the shared output window; --gather collective needs none)");
}

}  // namespace

// [window]
NodeOutput::NodeOutput(MPI_Comm node0, std::size_t images) {
  if (node0 == MPI_COMM_NULL) return;
  int rank = 0;
  MPI_Comm_rank(node0, &rank);
  // Errors come back as codes (not an abort), so that the run's checkpoint can report them.
  MPI_Comm_set_errhandler(node0, MPI_ERRORS_RETURN);
  const std::size_t floats = images * cudalabs::dcgan::kImageFloats;
  const MPI_Aint bytes = rank == 0 ? static_cast<MPI_Aint>(floats * sizeof(float)) : 0;
  void* mine = nullptr;
  require(MPI_Win_allocate_shared(bytes, sizeof(float), MPI_INFO_NULL, node0, &mine, &window_),
          "MPI_Win_allocate_shared");
  MPI_Win_set_errhandler(window_, MPI_ERRORS_RETURN);
  MPI_Aint size = 0;
  int unit = 0;
  require(MPI_Win_shared_query(window_, 0, &size, &unit, &base_), "MPI_Win_shared_query");
  floats_ = static_cast<std::size_t>(size) / sizeof(float);
  // One passive epoch for the window's life: MPI_Win_sync is only defined inside one.
  require(MPI_Win_lock_all(MPI_MODE_NOCHECK, window_), "MPI_Win_lock_all");
}
// [window]

NodeOutput::~NodeOutput() {
  if (window_ == MPI_WIN_NULL) return;
  MPI_Win_unlock_all(window_);
  MPI_Win_free(&window_);
}

void NodeOutput::sync() const {
  if (window_ != MPI_WIN_NULL) MPI_Win_sync(window_);
}

}  // namespace lab10
