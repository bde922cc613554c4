#!/bin/bash
# run_dcgan.sh VARIANT PRECISION: the DCGAN at batch 5248, per-layer times
exec $X/p/$1/dcgan --weights $W --precision $2 --num 5248 --batch 5248 --end-to-end-repetitions 0 --check-images 2
