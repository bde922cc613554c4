#include "labs/10_multi_gpu_dcgan/checkpoint.h"

#include <cstring>
#include <iostream>
#include <vector>

namespace lab10 {

cudalabs::CaughtError checkpoint(MPI_Comm comm, const cudalabs::CaughtError& mine,
                                 const std::string& program, const std::string& rank_label) {
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  const bool stopped = mine.code != cudalabs::kExitOk || mine.help;
  int worst = 0, failed = stopped ? 1 : 0, failures = 0;
  MPI_Allreduce(&mine.code, &worst, 1, MPI_INT, MPI_MAX, comm);
  MPI_Allreduce(&failed, &failures, 1, MPI_INT, MPI_SUM, comm);
  if (failures == 0) return {};
  int help = mine.help ? 1 : 0, helps = 0;
  MPI_Allreduce(&help, &helps, 1, MPI_INT, MPI_SUM, comm);
  if (helps > 0) return {cudalabs::kExitOk, "", true};  // rank 0 has printed the help
  // Fixed-size lines, so that one MPI_Gather brings every rank's to rank 0.
  constexpr int kLine = 512;
  std::string line = stopped ? rank_label + ": " + mine.message : "";
  line.resize(kLine, '\0');
  std::vector<char> lines(rank == 0 ? static_cast<std::size_t>(size) * kLine : 0);
  MPI_Gather(line.data(), kLine, MPI_CHAR, lines.data(), kLine, MPI_CHAR, 0, comm);
  if (rank == 0) {
    for (int r = 0; r < size; ++r) {
      const char* text = lines.data() + static_cast<std::size_t>(r) * kLine;
      if (text[0] != '\0') {
        std::cerr << program << ": " << std::string(text, strnlen(text, kLine));
        if (failures > 1) std::cerr << " (" << failures << " of " << size << " ranks failed)";
        std::cerr << "\n";
        break;
      }
    }
  }
  return {worst, "failed"};
}

}  // namespace lab10
