"""moto_server for mfdlq's tests: moto's own server, with three of moto
5.2.1's costs taken out. Each replacement returns what the code it
replaces returns; only the CPU it burns changes.

moto is one Python process answering every test of `make test` under one
GIL, so a call that burns CPU makes every other test's calls wait:

- EventBridge PutEvents parses the same eight JSONPath expressions for
  every event and rule, and jsonpath_ng rebuilds its LALR tables for every
  parse (about 0.2 s of CPU each): 100 events took two minutes. The parse
  is a pure function of the string, so it is cached.
- SQS ReceiveMessage reads the queue's MessageRetentionPeriod for every
  message it returns by computing all of the queue's attributes, three of
  which walk every message in the queue: a receive from a queue of 500
  cost a second. The retention period is read directly.
- SQS asks for the time, through naive datetimes, once or twice per
  message per receive; it is read from time.time(), the same clock.
- werkzeug logs every request; only its warnings and errors are kept.

The patches are tied to moto's internals, so they apply to the pinned
version only; any other version runs as it is, with a warning.

Usage: python3 moto_server.py [moto_server's arguments]
"""

import functools
import logging
import sys
import time

import moto
from moto.server import main

PINNED = "5.2.1"


def patch() -> None:
    import jsonpath_ng.ext
    from moto.core import utils as core_utils
    from moto.sqs import models as sqs_models

    # moto.events.utils imports parse inside the function, at each call.
    jsonpath_ng.ext.parse = functools.lru_cache(maxsize=256)(jsonpath_ng.ext.parse)

    slow_unix_time = core_utils.unix_time

    def unix_time(dt=None):
        return time.time() if dt is None else slow_unix_time(dt)

    def unix_time_millis(dt=None):
        return unix_time(dt) * 1000.0

    sqs_models.unix_time = unix_time
    sqs_models.unix_time_millis = unix_time_millis

    def is_message_valid_based_on_retention_period(self, queue_name, message):
        queue = self.get_queue(queue_name)
        retain_until = queue.message_retention_period + message.sent_timestamp / 1000
        return retain_until > unix_time()

    sqs_models.SQSBackend.is_message_valid_based_on_retention_period = (
        is_message_valid_based_on_retention_period
    )


if __name__ == "__main__":
    logging.getLogger("werkzeug").setLevel(logging.WARNING)
    if moto.__version__ == PINNED:
        patch()
    else:
        print(f"moto_server.py: moto {moto.__version__}, not {PINNED}: running unpatched", file=sys.stderr)
    main(sys.argv[1:])
