// Lab 10, MPI part 2: a student's version, written from the skeleton's TODO text alone.
#include "labs/10_multi_gpu_dcgan/node_output.h"

#include "common/dcgan_model.h"
#include "labs/10_multi_gpu_dcgan/scatter.h"

#include <stdexcept>
#include <string>

namespace lab10 {

namespace {
void check(int rc, const std::string& call) {
  if (rc != MPI_SUCCESS)
    throw std::runtime_error(call + " failed (code " + std::to_string(rc) + ")");
}
}  // namespace

NodeOutput::NodeOutput(MPI_Comm node0, std::size_t images) {
  if (node0 == MPI_COMM_NULL) return;
  MPI_Comm_set_errhandler(node0, MPI_ERRORS_RETURN);
  int me = 0;
  MPI_Comm_rank(node0, &me);
  MPI_Aint want = 0;
  if (me == 0) want = static_cast<MPI_Aint>(images * cudalabs::dcgan::kImageFloats * sizeof(float));
  float* local = nullptr;
  check(MPI_Win_allocate_shared(want, sizeof(float), MPI_INFO_NULL, node0, &local, &window_),
        "MPI_Win_allocate_shared");
  MPI_Aint bytes = 0;
  int disp = 0;
  check(MPI_Win_shared_query(window_, 0, &bytes, &disp, &base_), "MPI_Win_shared_query");
  floats_ = static_cast<std::size_t>(bytes) / sizeof(float);
  check(MPI_Win_lock_all(MPI_MODE_NOCHECK, window_), "MPI_Win_lock_all");
}

NodeOutput::~NodeOutput() {
  if (window_ == MPI_WIN_NULL) return;
  MPI_Win_unlock_all(window_);
  MPI_Win_free(&window_);
}

void NodeOutput::sync() const {
  if (window_ != MPI_WIN_NULL) MPI_Win_sync(window_);
}

}  // namespace lab10
