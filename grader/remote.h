/// @file grader/remote.h
/// @brief A remote function declared once: its wire name and its arguments as one struct whose
/// members are the Call's integers, reals and buffers. The referee packs a Call from the struct
/// (to_call); the runner unpacks the struct from the Call (from_call). Both read the one member
/// list, so the two sides cannot disagree on a name, a position or a count, and a Call that does
/// not fit the declaration is refused in one line.
///
/// A declaration (a lab's grader/labs/labNN_remote.h):
///
///     struct Copy {
///       static constexpr const char* kFunction = "lab00.copy";
///       std::int64_t count;        // ints[0]
///       remote::Buffer src, dst;   // buffers[0], buffers[1]
///       static constexpr auto kWire = remote::wire(&Copy::count, &Copy::src, &Copy::dst);
///     };
///
/// Members: std::int64_t and int (ints; an int is checked to fit on unpacking), double (reals),
/// Buffer (buffers), Operand (a buffer, and a byte offset among the ints after every int member:
/// the layout of grader/referee/call_operands.h), IntList (the ints no other member takes, as many
/// as the call has), HostData (host data), and groups: a struct of such members with a
/// kWire of its own (the GEMMs' operands, shared by several calls), whose members go in its place.
/// A member `std::string variant` makes the call name a variant (the student's, by name); without
/// it the call names none. kWire lists every other member, in the order they are declared (the
/// order of each list on the wire): a member left out of it fails to compile.
#pragma once

#include "grader/call.h"
#include "grader/channel.h"
#include "grader/remote_members.h"

#include <climits>
#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>

namespace grader::remote {

namespace detail {

// "7 integers, 0 reals, 3 buffers" (and the host data, where there is some).
inline std::string counts(std::size_t ints, std::size_t reals, std::size_t buffers,
                          std::size_t blobs) {
  std::string text = std::to_string(ints) + " integers, " + std::to_string(reals) + " reals, " +
                     std::to_string(buffers) + " buffers";
  return blobs == 0 ? text : text + ", " + std::to_string(blobs) + " host data";
}

}  // namespace detail

/// The Call the referee sends for `args`.
template <class Args>
Call to_call(const Args& args) {
  detail::check_declaration<Args>();
  Call call;
  call.function = Args::kFunction;
  if constexpr (detail::NamesVariant<Args>) call.variant = args.variant;
  auto pack = [&](const auto& member) {
    using Type = std::remove_cvref_t<decltype(member)>;
    if constexpr (detail::is_int<Type>) call.ints.push_back(member);
    if constexpr (detail::is_int_list<Type>)
      call.ints.insert(call.ints.end(), member.values.begin(), member.values.end());
    if constexpr (detail::is_host_data<Type>) call.blobs.push_back(member.bytes);
    if constexpr (detail::is_real<Type>) call.reals.push_back(member);
    if constexpr (detail::is_buffer<Type> || detail::is_operand<Type>)
      call.buffers.push_back(member.id);
  };
  detail::for_each_member(args, pack);
  auto pack_offset = [&](const auto& member) {
    if constexpr (detail::is_operand<std::remove_cvref_t<decltype(member)>>)
      call.ints.push_back(member.offset);
  };
  detail::for_each_member(args, pack_offset);
  return call;
}

/// The arguments `call` carries, as the runner reads them. Throws ChannelError, naming the call and
/// what it lacks, when it is not a call of Args::kFunction with exactly its arguments.
template <class Args>
Args from_call(const Call& call) {
  detail::check_declaration<Args>();
  const std::string malformed = "malformed call " + call.label() + ": ";
  if (call.function != Args::kFunction)
    throw ChannelError(malformed + "not a call of " + Args::kFunction);
  if (!detail::NamesVariant<Args> && !call.variant.empty())
    throw ChannelError(malformed + Args::kFunction + " takes no variant");
  constexpr std::size_t operands = detail::count<Args, detail::IsOperand>();
  constexpr bool has_list = detail::count<Args, detail::IsIntList>() == 1;
  constexpr std::size_t ints = detail::count<Args, detail::IsInt>() + operands;  // at least
  constexpr std::size_t reals = detail::count<Args, detail::IsReal>();
  constexpr std::size_t buffers = detail::count<Args, detail::IsBuffer>() + operands;
  constexpr std::size_t blobs = detail::count<Args, detail::IsHostData>();
  if ((has_list ? call.ints.size() < ints : call.ints.size() != ints) ||
      call.reals.size() != reals || call.buffers.size() != buffers || call.blobs.size() != blobs) {
    throw ChannelError(malformed +
                       detail::counts(call.ints.size(), call.reals.size(), call.buffers.size(),
                                      call.blobs.size()) +
                       "; " + Args::kFunction + " takes " + (has_list ? "at least " : "") +
                       detail::counts(ints, reals, buffers, blobs));
  }
  Args args{};
  if constexpr (detail::NamesVariant<Args>) args.variant = call.variant;
  const std::size_t list_length = call.ints.size() - ints;
  std::size_t next_int = 0, next_real = 0, next_buffer = 0, next_blob = 0;
  std::size_t next_offset = call.ints.size() - operands;
  auto unpack = [&](auto& member) {
    using Type = std::remove_cvref_t<decltype(member)>;
    if constexpr (std::is_same_v<Type, int>) {
      const std::int64_t value = call.ints[next_int++];
      if (value < INT_MIN || value > INT_MAX)
        throw ChannelError(malformed + "integer " + std::to_string(next_int - 1) + " (" +
                           std::to_string(value) + ") does not fit an int");
      member = static_cast<int>(value);
    }
    if constexpr (std::is_same_v<Type, std::int64_t>) member = call.ints[next_int++];
    if constexpr (detail::is_int_list<Type>) {
      const auto first = call.ints.begin() + static_cast<std::ptrdiff_t>(next_int);
      member.values.assign(first, first + static_cast<std::ptrdiff_t>(list_length));
      next_int += list_length;
    }
    if constexpr (detail::is_host_data<Type>) member.bytes = call.blobs[next_blob++];
    if constexpr (detail::is_real<Type>) member = call.reals[next_real++];
    if constexpr (detail::is_buffer<Type>) member = Buffer{call.buffers[next_buffer++]};
    if constexpr (detail::is_operand<Type>) {
      const std::int64_t offset = call.ints[next_offset++];
      if (offset < 0) throw ChannelError(malformed + "a negative offset");
      member = Operand{call.buffers[next_buffer++], offset};
    }
  };
  detail::for_each_member(args, unpack);
  return args;
}

}  // namespace grader::remote
