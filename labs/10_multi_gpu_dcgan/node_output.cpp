// Lab 10, MPI part 2 (YOURS): rank 0's output images in an MPI-3 shared-memory window, so that the
// ranks of rank 0's node write their images straight into it instead of sending them.
//
// The constructor, collective over `node0` (MPI_COMM_NULL on other nodes: no window, return):
//  1. Make errors come back as codes (MPI_Comm_set_errhandler(node0, MPI_ERRORS_RETURN)), and
//     throw std::runtime_error naming the call when one fails, so that the run's checkpoint
//     reports it (e.g. too little /dev/shm for 65,536 images) instead of MPI aborting.
//  2. MPI_Win_allocate_shared: rank 0 of node0 asks for all `images` x kImageFloats floats, every
//     other rank for 0 bytes (disp_unit sizeof(float)).
//  3. MPI_Win_shared_query(window_, 0, ...): every rank gets rank 0's base address and size in
//     its own address space: base_ and floats_.
//  4. MPI_Win_lock_all(MPI_MODE_NOCHECK, window_): one passive epoch for the window's life, since
//     MPI_Win_sync (sync() below) is only defined inside one.
// node_output.h has the contract; ctest --test-dir build -R lab10.student.NodeOutput tests
// it.
#include "labs/10_multi_gpu_dcgan/node_output.h"

#include "common/dcgan_model.h"
#include "labs/10_multi_gpu_dcgan/not_implemented.h"

#include <stdexcept>
#include <string>

namespace lab10 {

NodeOutput::NodeOutput(MPI_Comm node0, std::size_t images) {
  if (node0 == MPI_COMM_NULL) return;
  // TODO(lab10): the shared window on rank 0's node, base_ and floats_ set on every rank of it.
  (void)images;
  throw NotImplemented("NodeOutput");
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
