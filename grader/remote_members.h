/// @file grader/remote_members.h
/// @brief The members of a remote declaration (grader/remote.h): which kinds there are, the checks
/// a declaration must pass to compile, how many of each kind it holds, and a visit of each in wire
/// order (a group's members in the group's place).
#pragma once

#include "grader/call.h"

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

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

/// The ints after every other int member, as many as the call has (lab 10's workers, two each):
/// at most one such member in a declaration.
struct IntList {
  std::vector<std::int64_t> values;
  bool operator==(const IntList&) const = default;
};

/// Host bytes the function takes (lab 10's latents): one of the Call's host data, in declaration
/// order.
struct HostData {
  std::vector<std::uint8_t> bytes;
  bool operator==(const HostData&) const = default;
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
template <class Type>
inline constexpr bool is_int_list = std::is_same_v<Type, IntList>;
template <class Type>
inline constexpr bool is_host_data = std::is_same_v<Type, HostData>;
/// A group: members declared once for several calls (a GEMM's operands), with a kWire of its own.
template <class Type>
concept Group = requires {
  Type::kWire;
};

template <class Args>
concept NamesVariant = requires(Args args) {
  { args.variant } -> std::same_as<std::string&>;
};

template <class Type>
struct IsInt : std::bool_constant<is_int<Type>> {};
template <class Type>
struct IsReal : std::bool_constant<is_real<Type>> {};
template <class Type>
struct IsBuffer : std::bool_constant<is_buffer<Type>> {};
template <class Type>
struct IsOperand : std::bool_constant<is_operand<Type>> {};
template <class Type>
struct IsIntList : std::bool_constant<is_int_list<Type>> {};
template <class Type>
struct IsHostData : std::bool_constant<is_host_data<Type>> {};

/// How many members of `Args` (a group's counted inside it) are `Counted`.
template <class Args, template <class> class Counted>
constexpr std::size_t count();
template <class Type, template <class> class Counted>
constexpr std::size_t count_member() {
  if constexpr (Group<Type>)
    return count<Type, Counted>();
  else
    return Counted<Type>::value ? 1 : 0;
}
template <class Args, template <class> class Counted>
constexpr std::size_t count() {
  return std::apply(
      [](auto... members) {
        return (std::size_t{0} + ... + count_member<member_type<decltype(members)>, Counted>());
      },
      Args::kWire);
}

/// `visit(member)` for each member of `args` in wire order, a group's members in its place.
template <class Args, class Visit>
void for_each_member(Args& args, Visit& visit) {
  std::apply(
      [&](auto... members) {
        (
            [&] {
              auto& member = args.*members;
              if constexpr (Group<std::remove_cvref_t<decltype(member)>>)
                for_each_member(member, visit);
              else
                visit(member);
            }(),
            ...);
      },
      std::remove_const_t<Args>::kWire);
}

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
constexpr void check_declaration();
template <class Type>
constexpr bool is_member_kind() {
  if constexpr (Group<Type>) {
    check_declaration<Type>();
    return true;
  } else {
    return is_int<Type> || is_real<Type> || is_buffer<Type> || is_operand<Type> ||
           is_int_list<Type> || is_host_data<Type>;
  }
}

template <class Args>
constexpr void check_declaration() {
  static_assert(std::is_aggregate_v<Args>, "a remote declaration is a plain struct");
  std::apply(
      [](auto... members) {
        static_assert((is_member_kind<member_type<decltype(members)>>() && ...),
                      "a remote argument is an std::int64_t, an int, a double, a Buffer, an "
                      "Operand, an IntList, HostData or a group of them");
      },
      Args::kWire);
  static_assert(count<Args, IsIntList>() <= 1, "one IntList a declaration at most");
  static_assert(member_count<Args>() ==
                    std::tuple_size_v<decltype(Args::kWire)> + (NamesVariant<Args> ? 1 : 0),
                "kWire lists every member but the variant");
}

}  // namespace detail
}  // namespace grader::remote
