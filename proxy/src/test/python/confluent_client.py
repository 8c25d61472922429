#!/usr/bin/python3
"""A python confluent_kafka (librdkafka) client for Weft's conformance tests.

Run with the Debian python (/usr/bin/python3, package python3-confluent-kafka):

  confluent_client.py produce BOOTSTRAP TOPIC INPUT.tsv
      prints "node ID HOST PORT" per broker the client was told of, then "ack PARTITION OFFSET KEY"
      per acknowledged record; INPUT.tsv lines are KEY<TAB>BASE64-VALUE.
  confluent_client.py consume BOOTSTRAP TOPIC GROUP COUNT TIMEOUT_S
      joins GROUP, prints "PARTITION<TAB>OFFSET<TAB>KEY<TAB>BASE64-VALUE" per record and commits
      after each batch, until COUNT records arrived (exit 0) or TIMEOUT_S passed (exit 3).
  confluent_client.py consume-topics BOOTSTRAP TOPIC[,TOPIC...] GROUP COUNT TIMEOUT_S
      the same over several topics (dev.weft.proxy.weave tests), each line prefixed by "TOPIC<TAB>".
  confluent_client.py follow BOOTSTRAP TOPIC GROUP TIMEOUT_S
      joins GROUP (classic protocol, auto-commit every 200 ms) and prints each record's value, one a
      line, flushed, until SIGTERM (closes the consumer, exit 0) or TIMEOUT_S passed (exit 3); errors and
      rebalances go to stderr (dev.weft.proxy.switching tests: a consumer that rides through a switch).

With WEFT_SASL_MECHANISM set (PLAIN, SCRAM-SHA-256, SCRAM-SHA-512 with WEFT_SASL_USERNAME and
WEFT_SASL_PASSWORD; OAUTHBEARER with WEFT_SASL_TOKEN, the bearer token, handed over by oauth_cb), every
client authenticates with SASL (dev.weft.proxy.security.SaslEndToEndTest); a refused login ends the run
at once with exit 4 and "authentication failed: ..." on stderr (librdkafka would retry it forever).
"""
import base64
import os
import signal
import sys
import time

import confluent_kafka
from confluent_kafka import Consumer, KafkaError, Producer


def log(*args):
    print(*args, file=sys.stderr, flush=True)


class AuthenticationFailed(Exception):
    pass


def sasl(config):
    """config with the SASL settings of the environment (never the command line), if any."""
    mechanism = os.environ.get('WEFT_SASL_MECHANISM')
    if not mechanism:
        return config
    config = dict(config, **{'security.protocol': 'sasl_plaintext', 'sasl.mechanisms': mechanism})
    if mechanism.upper() == 'OAUTHBEARER':
        token = os.environ['WEFT_SASL_TOKEN']
        # (token, expiry in seconds since the epoch): the client does not read the token; the proxy checks it
        config['oauth_cb'] = lambda oauthbearer_config: (token, time.time() + 3600)
    else:
        config['sasl.username'] = os.environ['WEFT_SASL_USERNAME']
        config['sasl.password'] = os.environ['WEFT_SASL_PASSWORD']
    application_cb = config.get('error_cb')

    def on_error(err):
        if application_cb is not None:
            application_cb(err)
        if err.code() == KafkaError._AUTHENTICATION:
            # raised out of the poll/consume/flush that served it
            raise AuthenticationFailed(str(err))

    config['error_cb'] = on_error
    return config


def metadata_of(producer):
    """The cluster's metadata; with SASL, polled meanwhile: that serves oauth_cb and error_cb (a refused login)."""
    if not os.environ.get('WEFT_SASL_MECHANISM'):
        return producer.list_topics(timeout=30)
    deadline = time.monotonic() + 30
    while True:
        producer.poll(0.2)
        try:
            return producer.list_topics(timeout=1)
        except confluent_kafka.KafkaException:
            if time.monotonic() > deadline:
                raise


def produce(bootstrap, topic, input_path):
    producer = Producer(sasl({
        'bootstrap.servers': bootstrap,
        'enable.idempotence': True,
        'acks': 'all',
        'linger.ms': 5,
        'compression.type': 'snappy',
    }))
    metadata = metadata_of(producer)
    for broker in sorted(metadata.brokers.values(), key=lambda b: b.id):
        print('node %d %s %d' % (broker.id, broker.host, broker.port))

    errors = []
    acked = [0]

    def on_delivery(err, msg):
        if err is not None:
            errors.append('%s: %s' % (msg.key(), err))
        else:
            acked[0] += 1
            print('ack %d %d %s' % (msg.partition(), msg.offset(), msg.key().decode('ascii')))

    with open(input_path, 'r', encoding='ascii') as lines:
        records = [line.rstrip('\n').split('\t') for line in lines if line.strip()]
    for key, value in records:
        while True:
            try:
                producer.produce(topic, key=key.encode('ascii'), value=base64.b64decode(value),
                                 on_delivery=on_delivery)
                break
            except BufferError:
                producer.poll(0.1)
        producer.poll(0)
    remaining = producer.flush(60)
    sys.stdout.flush()
    if remaining or errors or acked[0] != len(records):
        log('produce failed: %d not flushed, %d acked of %d, errors %s'
            % (remaining, acked[0], len(records), errors[:20]))
        return 2
    return 0


def consume(bootstrap, topics, group, count, timeout_s, with_topic=False):
    consumer = Consumer(sasl({
        'bootstrap.servers': bootstrap,
        'group.id': group,
        'auto.offset.reset': 'earliest',
        'enable.auto.commit': False,
    }))
    consumer.subscribe(topics)
    received = 0
    deadline = time.monotonic() + timeout_s
    try:
        while received < count and time.monotonic() < deadline:
            batch = consumer.consume(num_messages=500, timeout=0.5)
            good = 0
            for msg in batch:
                if msg.error() is not None:
                    if msg.error().code() != KafkaError._PARTITION_EOF:
                        log('consume error: %s' % msg.error())
                    continue
                print('%s%d\t%d\t%s\t%s' % (msg.topic() + '\t' if with_topic else '', msg.partition(), msg.offset(), msg.key().decode('ascii'),
                                          base64.b64encode(msg.value() or b'').decode('ascii')))
                good += 1
            if good:
                consumer.commit(asynchronous=False)
                received += good
    finally:
        consumer.close()
    sys.stdout.flush()
    if received < count:
        log('consumed only %d of %d records within %s s' % (received, count, timeout_s))
        return 3
    return 0


def follow(bootstrap, topic, group, timeout_s):
    stopping = [False]

    def on_term(signum, frame):
        stopping[0] = True

    signal.signal(signal.SIGTERM, on_term)

    def stamp():
        return time.strftime('%H:%M:%S', time.gmtime()) + '.%03d' % (int(time.time() * 1000) % 1000)

    def on_error(err):
        log('%s error: %s' % (stamp(), err))

    def on_assign(consumer, partitions):
        log('%s assigned %s' % (stamp(), sorted(p.partition for p in partitions)))

    def on_revoke(consumer, partitions):
        log('%s revoked %s' % (stamp(), sorted(p.partition for p in partitions)))

    def on_commit(err, partitions):
        if err is not None:
            log('%s commit failed: %s' % (stamp(), err))

    consumer = Consumer(sasl({
        'bootstrap.servers': bootstrap,
        'group.id': group,
        'auto.offset.reset': 'earliest',
        'enable.auto.commit': True,
        'auto.commit.interval.ms': 200,
        'error_cb': on_error,
        'on_commit': on_commit,
    }))
    consumer.subscribe([topic], on_assign=on_assign, on_revoke=on_revoke)
    out = sys.stdout
    deadline = time.monotonic() + timeout_s
    try:
        while not stopping[0] and time.monotonic() < deadline:
            for msg in consumer.consume(num_messages=500, timeout=0.2):
                if msg.error() is not None:
                    if msg.error().code() != KafkaError._PARTITION_EOF:
                        log('%s consume error: %s' % (stamp(), msg.error()))
                    continue
                out.write((msg.value() or b'').decode('utf-8') + '\n')
            out.flush()
    finally:
        consumer.close()
    if not stopping[0]:
        log('%s no SIGTERM within %s s' % (stamp(), timeout_s))
        return 3
    return 0


def main(argv):
    log('confluent_kafka %s, librdkafka %s' % (confluent_kafka.version()[0], confluent_kafka.libversion()[0]))
    if len(argv) == 5 and argv[1] == 'produce':
        return produce(argv[2], argv[3], argv[4])
    if len(argv) == 7 and argv[1] == 'consume':
        return consume(argv[2], [argv[3]], argv[4], int(argv[5]), float(argv[6]))
    if len(argv) == 7 and argv[1] == 'consume-topics':
        return consume(argv[2], argv[3].split(','), argv[4], int(argv[5]), float(argv[6]), True)
    if len(argv) == 6 and argv[1] == 'follow':
        return follow(argv[2], argv[3], argv[4], float(argv[5]))
    log(__doc__)
    return 64


if __name__ == '__main__':
    try:
        sys.exit(main(sys.argv))
    except AuthenticationFailed as e:
        log('authentication failed: %s' % e)
        sys.exit(4)
