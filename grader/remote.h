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
/// the layout of grader/referee/call_operands.h). A member `std::string variant` makes the call
/// name a variant (the student's, by name); without it the call names none. kWire lists every other
/// member, in the order they are declared (the order of each list on the wire): a member left out
/// of it fails to compile.
#pragma once

#include "grader/call.h"
#include "grader/channel.h"

#include <algorithm>
#include <climits>
#include <cstddef>
#include <cstdint>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>

namespace grader::remote {

/// A buffer argument: an id of the Call's buffers (one put earlier, kNullBuffer or kDummyBuffer).
struct Buffer {
  std::int64_t id = kNullBuffer;
  bool operator==(const Buffer&) const = default;
};

/// An operand that may share its buffer with another of the call (an in-place softmax): the
/// buffer's id, among the Call's buffers in declaration order with the Buffer members, and the
/// operand's byte offset into it, which follows the Call's int members (operands in their order).
struct Operand {
  std::int64_t id = kNullBuffer;
  std::int64_t offset = 0;
  bool operator==(const Operand&) const = default;
};

/// The members on the wire, in declaration order.
template <class... Members>
constexpr std::tuple<Members...> wire(Members... members) {
  return {members...};
}

namespace detail {

template <class Member>
struct MemberOf;
template <class Struct, class Type>
struct MemberOf<Type Struct::*> {
  using type = Type;
};
template <class Member>
using member_type = typename MemberOf<Member>::type;

template <class Type>
inline constexpr bool is_int = std::is_same_v<Type, std::int64_t> || std::is_same_v<Type, int>;
template <class Type>
inline constexpr bool is_real = std::is_same_v<Type, double>;
template <class Type>
inline constexpr bool is_buffer = std::is_same_v<Type, Buffer>;
template <class Type>
inline constexpr bool is_operand = std::is_same_v<Type, Operand>;

template <class Args>
concept NamesVariant = requires(Args args) {
  { args.variant } -> std::same_as<std::string&>;
};

template <class Args, template <class> class Counted>
constexpr std::size_t count() {
  return std::apply(
      [](auto... members) {
        return (std::size_t{0} + ... + (Counted<member_type<decltype(members)>>::value ? 1 : 0));
      },
      Args::kWire);
}
template <class Type>
struct IsInt : std::bool_constant<is_int<Type>> {};
template <class Type>
struct IsReal : std::bool_constant<is_real<Type>> {};
template <class Type>
struct IsBuffer : std::bool_constant<is_buffer<Type>> {};
template <class Type>
struct IsOperand : std::bool_constant<is_operand<Type>> {};

// Converts to any member's type: Args{AnyArgument{}...} with N of them compiles only while N is at
// most Args's number of members (each member takes one, none of them elided into a nested one).
struct AnyArgument {
  template <class Type>
  operator Type() const;  // never called: only asked whether it compiles
};

template <class Args, std::size_t... Index>
constexpr bool takes(std::index_sequence<Index...>) {
  return requires {
    Args{(static_cast<void>(Index), AnyArgument{})...};
  };
}

template <class Args, std::size_t Count = 0>
constexpr std::size_t member_count() {
  if constexpr (takes<Args>(std::make_index_sequence<Count + 1>{}))
    return member_count<Args, Count + 1>();
  else
    return Count;
}

template <class Args>
constexpr void check_declaration() {
  static_assert(std::is_aggregate_v<Args>, "a remote declaration is a plain struct");
  std::apply(
      [](auto... members) {
        static_assert(
            ((is_int<member_type<decltype(members)>> || is_real<member_type<decltype(members)>> ||
              is_buffer<member_type<decltype(members)>> ||
              is_operand<member_type<decltype(members)>>)&&...),
            "a remote argument is an std::int64_t, an int, a double, a Buffer or an Operand");
      },
      Args::kWire);
  static_assert(member_count<Args>() ==
                    std::tuple_size_v<decltype(Args::kWire)> + (NamesVariant<Args> ? 1 : 0),
                "kWire lists every member but the variant");
}

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
  std::apply(
      [&](auto... members) {
        (
            [&] {
              using Type = detail::member_type<decltype(members)>;
              if constexpr (detail::is_int<Type>) call.ints.push_back(args.*members);
              if constexpr (detail::is_real<Type>) call.reals.push_back(args.*members);
              if constexpr (detail::is_buffer<Type> || detail::is_operand<Type>)
                call.buffers.push_back((args.*members).id);
            }(),
            ...);
      },
      Args::kWire);
  std::apply(
      [&](auto... members) {
        (
            [&] {
              if constexpr (detail::is_operand<detail::member_type<decltype(members)>>)
                call.ints.push_back((args.*members).offset);
            }(),
            ...);
      },
      Args::kWire);
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
  constexpr std::size_t int_members = detail::count<Args, detail::IsInt>();
  constexpr std::size_t ints = int_members + operands;
  constexpr std::size_t reals = detail::count<Args, detail::IsReal>();
  constexpr std::size_t buffers = detail::count<Args, detail::IsBuffer>() + operands;
  if (call.ints.size() != ints || call.reals.size() != reals || call.buffers.size() != buffers ||
      !call.blobs.empty()) {
    throw ChannelError(malformed +
                       detail::counts(call.ints.size(), call.reals.size(), call.buffers.size(),
                                      call.blobs.size()) +
                       "; " + Args::kFunction + " takes " +
                       detail::counts(ints, reals, buffers, 0));
  }
  Args args{};
  if constexpr (detail::NamesVariant<Args>) args.variant = call.variant;
  std::size_t next_int = 0, next_real = 0, next_buffer = 0, next_offset = int_members;
  std::apply(
      [&](auto... members) {
        (
            [&] {
              using Type = detail::member_type<decltype(members)>;
              if constexpr (std::is_same_v<Type, int>) {
                const std::int64_t value = call.ints[next_int++];
                if (value < INT_MIN || value > INT_MAX)
                  throw ChannelError(malformed + "integer " + std::to_string(next_int - 1) + " (" +
                                     std::to_string(value) + ") does not fit an int");
                args.*members = static_cast<int>(value);
              }
              if constexpr (std::is_same_v<Type, std::int64_t>)
                args.*members = call.ints[next_int++];
              if constexpr (detail::is_real<Type>) args.*members = call.reals[next_real++];
              if constexpr (detail::is_buffer<Type>)
                args.*members = Buffer{call.buffers[next_buffer++]};
              if constexpr (detail::is_operand<Type>) {
                const std::int64_t offset = call.ints[next_offset++];
                if (offset < 0) throw ChannelError(malformed + "a negative offset");
                args.*members = Operand{call.buffers[next_buffer++], offset};
              }
            }(),
            ...);
      },
      Args::kWire);
  return args;
}

}  // namespace grader::remote
