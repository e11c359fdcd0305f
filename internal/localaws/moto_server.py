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

One patch fixes a race rather than a cost. moto's server answers each
request on a thread of its own, and SQS's Queue.delete_message rebuilds
the queue's message list from a copy and assigns it back, without the
queue's lock: two DeleteMessageBatch calls on one queue at once each
rebuild from the same list, and the second assignment brings back what
the first deleted (1,063 of 2,000 messages deleted by 16 threads came
back, in flight, in one run). SQS keeps a delete it answered, so
mfdlq's tests saw "10 in flight" after a move whose journal held every
delete. A receive that runs beside it can likewise hand one message to
two callers, or move one to the DLQ while a delete keeps it. Deletes,
receives and visibility changes of one queue now hold the queue's own
lock (the one moto's send already takes); a long poll's wait releases
it. internal/localaws's TestConcurrent* fail without this patch.

Another keeps a FIFO group's order. moto keeps the messages in flight
in a set, and ChangeMessageVisibility takes a message out of it only if
the message is visible when it looks (visible_at strictly before now):
with VisibilityTimeout 0, a clock read twice within one tick leaves it in
the set though visible. moto's own clock (datetime, 4 us a read here)
did not in 200,000 releases; the time.time() above (a 0.24 us tick) does
in 40 %. The next receive counts the group in flight, skips its visible
messages ahead of that one, takes it out of the set when it reaches it,
and hands out it and the rest of the group: released 0-2, a group came
back as 2 3 4, ahead of 0 and 1 (TestRedriveFIFOHoldsBackAGroupAfterAFailure,
after the plan's preview). A message whose visibility timeout ran out
takes the same path. SQS hands a group out in order once its messages
are visible again, so a receive first takes every visible message out of
the set. TestReleasedFIFOMessagesComeBackFirst fails without this patch.

S3's conditional writes have the same shape: PutObject with If-None-Match
or If-Match, and DeleteObject with If-Match, read the object and then
write it, without a lock, so two conditional creates of one key at once
could both succeed (two runs held one S3 lease). S3 decides them
atomically; here they hold one lock.

The patches are tied to moto's internals, so they apply to the pinned
version only; any other version runs as it is, with a warning.

Usage: python3 moto_server.py [moto_server's arguments]
"""

import functools
import logging
import sys
import threading
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

    # The race described above: one queue's deletes, receives and
    # visibility changes under its own lock. _messages_lock is a Condition
    # over an RLock, so the receive's long-poll wait (which takes it again
    # and waits on it) releases it fully while it waits.
    queue_delete = sqs_models.Queue.delete_message

    def delete_message(self, receipt_handle):
        with self._messages_lock:
            return queue_delete(self, receipt_handle)

    sqs_models.Queue.delete_message = delete_message

    def under_queue_lock(method):
        @functools.wraps(method)
        def locked(self, queue_name, *args, **kwargs):
            queue = self.get_queue(queue_name)
            with queue._messages_lock:
                return method(self, queue_name, *args, **kwargs)

        return locked

    # A FIFO group in flight only while one of its messages is hidden
    # (above): this runs under the queue's lock, taken below. A standard
    # queue's set decides nothing, and is left as it is.
    queue_receive = sqs_models.SQSBackend.receive_message

    def receive_message(self, queue_name, *args, **kwargs):
        queue = self.get_queue(queue_name)
        if queue.fifo_queue:
            for message in [m for m in queue.pending_messages if m.visible]:
                queue.pending_messages.discard(message)
        return queue_receive(self, queue_name, *args, **kwargs)

    sqs_models.SQSBackend.receive_message = receive_message

    for name in ("receive_message", "change_message_visibility"):
        setattr(sqs_models.SQSBackend, name, under_queue_lock(getattr(sqs_models.SQSBackend, name)))

    from moto.s3 import responses as s3_responses

    s3_lock = threading.RLock()

    def under_s3_lock(method):
        @functools.wraps(method)
        def locked(self, *args, **kwargs):
            with s3_lock:
                return method(self, *args, **kwargs)

        return locked

    for name in ("put_object", "delete_object"):
        setattr(s3_responses.S3Response, name, under_s3_lock(getattr(s3_responses.S3Response, name)))


if __name__ == "__main__":
    logging.getLogger("werkzeug").setLevel(logging.WARNING)
    if moto.__version__ == PINNED:
        patch()
    else:
        print(f"moto_server.py: moto {moto.__version__}, not {PINNED}: running unpatched", file=sys.stderr)
    main(sys.argv[1:])
