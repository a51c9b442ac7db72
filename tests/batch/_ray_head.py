"""A local Ray instance for the tests, in a process of its own.

``python -m tests.batch._ray_head`` starts Ray (2 CPUs, no dashboard), prints the
address drivers join it by, and stops it when its stdin closes (so it goes when
the test process goes, however that ends). Ray's threads and handlers never live
in the test process itself.
"""

from __future__ import annotations

import sys

import ray


def main() -> int:
    context = ray.init(
        address="local",
        num_cpus=2,
        include_dashboard=False,
        logging_level="WARNING",
        log_to_driver=False,
    )
    print(context.address_info["gcs_address"], flush=True)
    sys.stdin.read()
    ray.shutdown()
    return 0


if __name__ == "__main__":
    sys.exit(main())
