"""The suite's own test runs: what ctest reports, summed up for whoever ran `make test`."""
