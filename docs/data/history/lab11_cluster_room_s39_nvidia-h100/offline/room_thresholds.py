#!/usr/bin/env python3
"""Where the sliced kernel's clusters stop fitting the GPU at once, from bench outputs.

Reads "plan" lines (bench_cluster_slices11 or bench_cluster_room11: label a_bytes b_bytes slices
slice_k graph_us predicted_us rel_l2 [fits]) and, for plans of at most a block an SM (tiles x
slices <= SMs), the ratio of the measured GPU time to the model's. Per count of slices: the most
tiles (64 x 128 of C) of a plan within 1.25 of the model, the fewest tiles of a plan past it, and
how many plans each side; with "room" lines (bench_cluster_room11), the runtime's and the probe's
count of clusters at once beside them; with the "fits" column (bench_cluster_room11), every sliced
plan by whether the room holds its clusters at once: the geometric mean of measured / model and
how many ran past 1.25 of it; and those the room holds by chunks (32 values of K) a slice, 1 to 4:
the mean of measured / model and of the measured time.

    room_thresholds.py SMS BENCH_OUTPUT...
"""
import collections
import math
import sys

SLOW = 1.25  # past this ratio a plan ran as if its clusters did not all fit at once


def tiles_of(label):
    m, n, _ = (int(v) for v in label.split('+')[0].split('x'))
    return -(-m // 64) * -(-n // 128)


def main(argv):
    if len(argv) < 3:
        sys.exit('usage: room_thresholds.py SMS BENCH_OUTPUT...')
    sms = int(argv[1])
    fast, slow, room = collections.defaultdict(list), collections.defaultdict(list), {}
    by_fit = collections.defaultdict(list)
    by_chunks = collections.defaultdict(list)  # plans the room holds: (ratio, us)
    for path in argv[2:]:
        for line in open(path):
            fields = line.split()
            if fields and fields[0] == 'room':
                room[int(fields[1])] = (int(fields[2]), int(fields[3]))
            if not fields or fields[0] != 'plan' or int(fields[4]) < 2:
                continue
            tiles, slices = tiles_of(fields[1]), int(fields[4])
            if len(fields) > 9:
                by_fit[fields[9]].append(float(fields[6]) / float(fields[7]))
                if fields[9] == '1':
                    by_chunks[-(-int(fields[5]) // 32)].append(
                        (float(fields[6]) / float(fields[7]), float(fields[6])))
            if tiles * slices > sms:
                continue
            ratio = float(fields[6]) / float(fields[7])
            (slow if ratio > SLOW else fast)[slices].append(tiles)
    print(f'plans of at most a block an SM ({sms} SMs); slow: GPU time past {SLOW} of the model')
    print('slices  most tiles fast (plans)  fewest tiles slow (plans)  room: runtime, probed')
    for slices in sorted(set(fast) | set(slow)):
        most_fast = max(fast[slices], default='-')
        least_slow = min(slow[slices], default='-')
        asked = room.get(slices, ('-', '-'))
        print(f'{slices:6}  {most_fast!s:>15} ({len(fast[slices]):3})  '
              f'{least_slow!s:>18} ({len(slow[slices]):3})  {asked[0]!s:>8}, {asked[1]!s}')

    for fits in sorted(by_fit, reverse=True):
        ratios = by_fit[fits]
        mean = math.exp(sum(math.log(r) for r in ratios) / len(ratios))
        print(f'fits {fits}: {len(ratios)} sliced plans, geometric mean measured / model '
              f'{mean:.3f}, past {SLOW}: {sum(r > SLOW for r in ratios)}')
    for chunks in sorted(c for c in by_chunks if c <= 4):
        plans = by_chunks[chunks]
        print(f'{chunks} chunks a slice, held: {len(plans)} plans, mean measured / model '
              f'{sum(r for r, _ in plans) / len(plans):.3f}, mean {sum(u for _, u in plans) / len(plans):.2f} us')


if __name__ == '__main__':
    main(sys.argv)
