#include "common/earlier_labs.h"

namespace cudalabs {

std::string earlier_labs_line(const std::vector<EarlierLab>& labs, bool student_build) {
  if (labs.empty()) return "";
  std::string reference, own;
  for (const auto& [lab, build] : labs) {
    std::string& list = build == "student" ? own : reference;
    list += (list.empty() ? "lab " : ", lab ") + lab;
  }
  std::string line = "built on:";
  if (!reference.empty()) {
    line += " the reference kernels of " + reference;
    if (student_build) line += " (your own with EARLIER_LABS=student)";
  }
  if (!own.empty())
    line += std::string(reference.empty() ? "" : ";") + " your own kernels of " + own;
  return line;
}

}  // namespace cudalabs
