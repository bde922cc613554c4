#!/usr/bin/env python3
"""The resource gate: no lab fails to launch on a smaller GPU.

Reads what the compiler wrote into every built kernel object, for every architecture it holds machine
code for: each kernel's registers per thread (EIATTR_REGCOUNT), its static shared memory (the size of
its .nv.shared section) and its launch bounds (EIATTR_MAX_THREADS), the way `cuobjdump
--dump-resource-usage` reports them, from the device code embedded in the objects (.nv_fatbin, whose
compressed entries `zstd` expands). It joins them with the launches the labs make (threads per block,
dynamic shared memory: the `launches` program prints what each variant's describe() gives) and checks
each kernel on each architecture against that architecture's published limits (the CUDA C++
Programming Guide's table of technical specifications per compute capability):

  per thread: registers <= 255;
  per block:  threads <= 1024, registers of all its warps <= the register file, static shared memory
              <= 48 KiB, static + dynamic shared memory <= the opt-in maximum per block;
  per SM:     one block fits: its threads, and its shared memory with the driver's reserve.

Machine code also runs on the GPUs of its major version with a newer minor one where the object has none
of their own (8.6 and 8.9 run sm_80 code): it is checked with their limits too (8.6 has less shared
memory per SM than 8.0). Architectures reached only through PTX (newer GPUs JIT-compile the newest PTX)
are checked for the shared memory and threads of the newest machine code, with the newer GPU's limits.

  resource_gate.py BUILD_DIR [--launches PROGRAM] [--arch 75,80,...] [--verbose]
Exit 0 when every kernel fits everywhere, 1 with one line per kernel and architecture that does not.
"""
from __future__ import annotations

import argparse
import collections
import pathlib
import re
import shutil
import struct
import subprocess
import sys
import tempfile

# Per compute capability: (threads per SM, shared memory per SM, opt-in shared memory per block, shared
# memory the driver reserves per block, registers per SM). Registers per thread 255, threads per block
# 1024, static shared memory 48 KiB and the register file per block 64 Ki are the same on all of them.
LIMITS = {
    75: (1024, 64 << 10, 64 << 10, 0, 65536),
    80: (2048, 164 << 10, 163 << 10, 1 << 10, 65536),
    86: (1536, 100 << 10, 99 << 10, 1 << 10, 65536),
    87: (2048, 164 << 10, 163 << 10, 1 << 10, 65536),
    89: (1536, 100 << 10, 99 << 10, 1 << 10, 65536),
    90: (2048, 228 << 10, 227 << 10, 1 << 10, 65536),
    100: (2048, 228 << 10, 227 << 10, 1 << 10, 65536),
    103: (2048, 228 << 10, 227 << 10, 1 << 10, 65536),
    120: (1536, 100 << 10, 99 << 10, 1 << 10, 65536),
    121: (1536, 100 << 10, 99 << 10, 1 << 10, 65536),
}
MAX_REGISTERS_PER_THREAD = 255
MAX_THREADS_PER_BLOCK = 1024
MAX_STATIC_SHARED = 48 << 10
REGISTER_FILE_PER_BLOCK = 65536
REGISTER_UNIT = 256  # registers are given to a warp in units of 256

FATBIN_MAGIC = 0xBA55ED50
ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"
EIATTR_MAX_THREADS = 0x05
EIATTR_REGCOUNT = 0x2F
EIFMT_SVAL = 0x04


class GateError(Exception):
    """A build the gate cannot read (a missing tool, an object it does not understand)."""


def section_bytes(path: pathlib.Path, name: str) -> bytes:
    with tempfile.NamedTemporaryFile() as out:
        done = subprocess.run(
            ["objcopy", "-O", "binary", f"--only-section={name}", str(path), out.name], capture_output=True
        )
        if done.returncode != 0:
            return b""
        return pathlib.Path(out.name).read_bytes()


def decompress(payload: bytes, expected: int) -> bytes:
    if payload[:4] != ZSTD_MAGIC:
        raise GateError(
            "a compressed fatbin entry that is not zstd (an older toolkit's LZ4?): rebuild with " "CUDA 12.5 or newer"
        )
    zstd = shutil.which("zstd")
    if zstd is None:
        raise GateError("zstd not found: it reads compressed device code (scripts/setup installs it)")
    done = subprocess.run([zstd, "-d", "-c", "-q"], input=payload, capture_output=True)
    if done.returncode != 0 or (expected and len(done.stdout) < expected):
        raise GateError(f"zstd could not expand a fatbin entry: {done.stderr.decode(errors='replace')}")
    return done.stdout[:expected] if expected else done.stdout


def fatbin_entries(data: bytes):
    """(kind, arch, payload) for every entry: kind 1 is PTX, 2 machine code (an ELF cubin)."""
    offset = 0
    while offset + 16 <= len(data):
        magic, _version, header_size, body_size = struct.unpack_from("<IHHQ", data, offset)
        if magic != FATBIN_MAGIC:
            break
        entry, end = offset + header_size, offset + header_size + body_size
        while entry < end:
            (
                kind,
                _,
                entry_header,
                padded,
                compressed,
                _,
                _minor,
                _major,
                arch,
                _,
                _,
                flags,
                _,
                expanded,
            ) = struct.unpack_from("<HHIQIIHHIIIQQQ", data, entry)
            payload = data[entry + entry_header : entry + entry_header + padded]
            if expanded and compressed:
                payload = payload[:compressed]
                if kind == 2:
                    payload = decompress(payload, expanded)
            yield kind, arch, payload
            entry += entry_header + padded
        offset = end
        while offset < len(data) and data[offset : offset + 4] != struct.pack("<I", FATBIN_MAGIC):
            offset += 8  # entries are 8-byte aligned


def parse_cubin(elf: bytes, arch: int):
    """{kernel: (registers, static shared bytes as its section holds them, launch-bound threads or 0,
    stub)}; a stub is a kernel compiled out for this architecture (`#if __CUDA_ARCH__ >= ...` left
    nothing but EXIT: 128 bytes of code before 8.0, 256 from 8.0 on), which its variant never launches
    there (it reports itself unavailable)."""
    if elf[:4] != b"\x7fELF" or elf[4] != 2:
        raise GateError("a machine-code entry that is not a 64-bit ELF cubin")
    (section_offset,) = struct.unpack_from("<Q", elf, 0x28)
    entry_size, count, names_index = struct.unpack_from("<HHH", elf, 0x3A)
    sections = [struct.unpack_from("<IIQQQQIIQQ", elf, section_offset + i * entry_size) for i in range(count)]
    names_at = sections[names_index][4]

    def name_of(offset):
        return elf[names_at + offset : elf.index(b"\0", names_at + offset)].decode()

    by_name = {name_of(s[0]): s for s in sections}
    symtab = next((s for s in sections if s[1] == 2), None)  # SHT_SYMTAB
    symbols = []
    if symtab is not None:
        strings = sections[symtab[6]][4]
        for i in range(symtab[5] // 24):
            (st_name,) = struct.unpack_from("<I", elf, symtab[4] + i * 24)
            symbols.append(elf[strings + st_name : elf.index(b"\0", strings + st_name)].decode())

    def attributes(blob):
        at = 0
        while at + 4 <= len(blob):
            fmt, attribute = blob[at], blob[at + 1]
            if fmt == EIFMT_SVAL:
                (size,) = struct.unpack_from("<H", blob, at + 2)
                yield attribute, blob[at + 4 : at + 4 + size]
                at += 4 + size
            else:
                yield attribute, blob[at + 2 : at + 4]
                at += 4

    registers = {}
    info = by_name.get(".nv.info")
    if info is not None:
        for attribute, value in attributes(elf[info[4] : info[4] + info[5]]):
            if attribute == EIATTR_REGCOUNT and len(value) >= 8:
                symbol, count_ = struct.unpack_from("<II", value)
                if symbol < len(symbols):
                    registers[symbols[symbol]] = count_
    kernels = {}
    for name, section in by_name.items():
        if not name.startswith(".nv.info."):
            continue
        kernel = name[len(".nv.info.") :]
        threads = 0
        for attribute, value in attributes(elf[section[4] : section[4] + section[5]]):
            if attribute == EIATTR_MAX_THREADS and len(value) >= 12:
                x, y, z = struct.unpack_from("<III", value)
                threads = x * y * z
        shared = by_name.get(f".nv.shared.{kernel}")
        text = by_name.get(f".text.{kernel}")
        stub = text is not None and text[5] <= (128 if arch < 80 else 256)
        kernels[kernel] = (registers.get(kernel, 0), shared[5] if shared is not None else 0, threads, stub)
    return kernels


def ptx_stubs(ptx: str):
    """The entries of a PTX module whose body holds no instruction but `ret`."""
    stubs = set()
    for match in re.finditer(r"\.entry\s+([\w$.]+)\s*\(", ptx):
        start = ptx.find("{", ptx.find(")", match.end()))
        depth, at = 0, start
        while at < len(ptx):
            depth += {"{": 1, "}": -1}.get(ptx[at], 0)
            if depth == 0:
                break
            at += 1
        body = re.sub(r"//[^\n]*", "", ptx[start + 1 : at])
        instructions = [line.strip() for line in body.split(";") if line.strip() and not line.strip().startswith(".")]
        if all(re.fullmatch(r"ret(\.uni)?", i) for i in instructions):
            stubs.add(match.group(1))
    return stubs


def demangle(names):
    names = list(names)
    if not names:
        return {}
    done = subprocess.run(["c++filt"], input="\n".join(names), capture_output=True, text=True, check=True)
    return dict(zip(names, done.stdout.splitlines()))


def read_objects(build: pathlib.Path):
    """{(object, arch): {kernel: resources}} and {object: newest PTX arch} over every kernel object."""
    machine, ptx = {}, {}
    for path in sorted(build.rglob("*.o")):
        if "CMakeFiles" not in path.parts or "CompilerId" in str(path):
            continue
        data = section_bytes(path, ".nv_fatbin")
        if not data:
            continue
        for kind, arch, payload in fatbin_entries(data):
            if kind == 2:
                machine[(path, arch)] = parse_cubin(payload, arch)
            elif kind == 1 and arch >= ptx.get(path, (0, set()))[0]:
                text = payload
                if text[:4] == ZSTD_MAGIC:
                    text = decompress(text, 0)
                ptx[path] = (arch, ptx_stubs(text.decode(errors="replace")))
    return machine, ptx


def read_launches(program: pathlib.Path):
    """{demangled kernel: (threads, dynamic bytes)} at their largest over the labs' launches, the
    variants whose launch could not be described without a GPU, and {lab: launches it catalogs}."""
    done = subprocess.run([str(program)], capture_output=True, text=True, check=True)
    lines = done.stdout.splitlines()
    anchor = int(lines[0].split()[1], 16)
    listing = subprocess.run(["nm", "--defined-only", str(program)], capture_output=True, text=True, check=True)
    addresses, anchor_at = {}, None
    for line in listing.stdout.splitlines():
        parts = line.split()
        if len(parts) == 3:
            addresses[int(parts[0], 16)] = parts[2]
            if parts[2] == "cudalabs_resource_gate_anchor":
                anchor_at = int(parts[0], 16)
    if anchor_at is None:
        raise GateError(f"{program}: no symbol table (was it stripped?)")
    names = demangle(set(addresses.values()))
    launches, undescribed, catalogs = {}, [], {}
    for line in lines[1:]:
        parts = line.split()
        if parts[0] == "catalog":
            catalogs[parts[1]] = int(parts[2])
            continue
        if parts[0] == "undescribed":
            undescribed.append(f"{parts[1]} {parts[2]}")
            continue
        address = int(parts[3], 16) - anchor + anchor_at
        symbol = addresses.get(address)
        if symbol is None:
            raise GateError(f"{parts[1]} {parts[2]}: no symbol at the kernel's address")
        kernel = normalized(names.get(symbol, symbol))
        threads, dynamic = int(parts[4]), int(parts[5])
        old = launches.get(kernel, (0, 0))
        launches[kernel] = (max(old[0], threads), max(old[1], dynamic))
    return launches, undescribed, catalogs


def normalized(name: str) -> str:
    """A kernel's demangled name without what differs between host and device spellings."""
    return re.sub(r"\s+", " ", name.replace(" [clone .cold]", "")).strip()


def block_registers(registers: int, threads: int) -> int:
    per_warp = -(-registers * 32 // REGISTER_UNIT) * REGISTER_UNIT
    return per_warp * -(-threads // 32)


def targets_of(arch: int, archs: set[int], newest_ptx: int | None) -> list[tuple[int, bool]]:
    """The GPUs that run an object's sm_<arch> machine code, given every machine code the object holds
    (archs) and its newest PTX: (compute capability, reached through PTX JIT compilation)."""
    targets = [(arch, False)]
    # A GPU of the same major version runs the newest machine code not newer than itself.
    targets += [
        (same, False)
        for same in LIMITS
        if same // 10 == arch // 10 and same > arch and not any(arch < other <= same for other in archs)
    ]
    # The newest PTX is what GPUs newer than every machine code of the object JIT-compile.
    if newest_ptx is not None and newest_ptx >= arch and arch == max(archs):
        targets += [(newer, True) for newer in LIMITS if newer > arch and newer // 10 != arch // 10]
    return targets


def check(arch: int, kernel: str, registers: int, section_shared: int, bound: int, launch, jit: bool):
    """The problems of one kernel on one architecture, as text."""
    threads_per_sm, shared_per_sm, shared_per_block, reserved, _ = LIMITS[arch]
    # From compute capability 9.0 on, the driver's 1 KiB is part of the kernel's shared section.
    static = section_shared - reserved if arch >= 90 and section_shared >= reserved else section_shared
    threads = launch[0] if launch else bound
    dynamic = launch[1] if launch else 0
    problems = []
    if not jit and registers > MAX_REGISTERS_PER_THREAD:
        problems.append(f"{registers} registers per thread > {MAX_REGISTERS_PER_THREAD}")
    if static > MAX_STATIC_SHARED:
        problems.append(f"{static} bytes of static shared memory > {MAX_STATIC_SHARED}")
    if static + dynamic > shared_per_block:
        problems.append(f"{static} + {dynamic} bytes of shared memory per block > {shared_per_block}")
    if static + dynamic + reserved > shared_per_sm:
        problems.append(f"a block's {static + dynamic + reserved} bytes of shared memory > {shared_per_sm} per SM")
    if threads:
        if threads > MAX_THREADS_PER_BLOCK or threads > threads_per_sm:
            problems.append(f"{threads} threads per block > {min(MAX_THREADS_PER_BLOCK, threads_per_sm)}")
        if not jit and block_registers(registers, threads) > REGISTER_FILE_PER_BLOCK:
            problems.append(f"{threads} threads x {registers} registers > the {REGISTER_FILE_PER_BLOCK}-register file")
    return problems


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("build")
    parser.add_argument("--launches", help="the launches program (default BUILD/tests/resource_gate_launches)")
    parser.add_argument("--arch", help="check only these architectures (comma-separated, e.g. 75,80)")
    parser.add_argument("--verbose", action="store_true", help="print every kernel's resources")
    args = parser.parse_args(argv)
    build = pathlib.Path(args.build)
    only = {int(a) for a in args.arch.split(",")} if args.arch else None
    try:
        machine, ptx = read_objects(build)
        program = pathlib.Path(args.launches) if args.launches else build / "tests" / "resource_gate_launches"
        launches, undescribed, catalogs = read_launches(program) if program.exists() else ({}, [], {})
        device_names = demangle({k for kernels in machine.values() for k in kernels})
    except (GateError, subprocess.CalledProcessError) as error:
        print(f"resource_gate: {error}", file=sys.stderr)
        return 2
    if not machine:
        print(f"resource_gate: no kernel objects under {build} (build it first)", file=sys.stderr)
        return 2
    failures, checked, with_launch = [], collections.Counter(), set()
    newest = {}
    for (path, arch), kernels in machine.items():
        newest[path] = max(newest.get(path, 0), arch)
        archs = {a for (p, a) in machine if p == path}
        for target, jit in targets_of(arch, archs, ptx[path][0] if path in ptx else None):
            if target not in LIMITS or (only and target not in only):
                continue
            for kernel, (registers, shared, bound, stub) in kernels.items():
                name = normalized(device_names.get(kernel, kernel))
                launch = launches.get(name)
                if launch:
                    with_launch.add(name)
                if (jit and kernel in ptx[path][1]) or (not jit and stub):
                    continue  # compiled out for this architecture: never launched there
                checked[target] += 1
                for problem in check(target, kernel, registers, shared, bound, launch, jit):
                    where = "JIT from PTX" if jit else f"sm_{arch} machine code"
                    failures.append(
                        f"{path.parent.name}: {name} on compute {target // 10}.{target % 10} ({where}): " f"{problem}"
                    )
                if args.verbose:
                    print(
                        f"sm_{target}{' (PTX)' if jit else ''} {registers:3d} regs {shared:6d} B shared "
                        f"bound {bound:4d} launch {launch} {name}"
                    )
    for line in sorted(set(failures)):
        print(f"resource_gate: FAIL {line}")
    empty = sorted(lab for lab, count in catalogs.items() if count == 0)
    for lab in empty:
        print(f"resource_gate: FAIL {lab} declares launches but its catalog describes none")
    missing = sorted(set(launches) - with_launch)
    for name in missing:
        print(f"resource_gate: FAIL a launch of {name}, whose kernel is in no object")
    summary = ", ".join(f"compute {a // 10}.{a % 10}: {n}" for a, n in sorted(checked.items()))
    print(
        f"resource_gate: {len(set(failures)) + len(missing) + len(empty)} problem(s); kernels checked per "
        f"architecture: {summary}; {len(with_launch)} with the launches of {len(catalogs)} labs ("
        f"{', '.join(sorted(catalogs))}: threads, dynamic shared memory)"
        + (f"; described only on a GPU: {', '.join(undescribed)}" if undescribed else "")
    )
    return 1 if failures or missing or empty else 0


if __name__ == "__main__":
    sys.exit(main())
