#!/usr/bin/env node
// A current librdkafka (bundled by @confluentinc/kafka-javascript, node-rdkafka's API) for Weft's
// conformance tests (dev.weft.proxy.conformance.CurrentLibrdkafkaConformanceTest).
//
//   node rdkafka_client.js version
//       prints "librdkafka VERSION".
//   node rdkafka_client.js produce BOOTSTRAP TOPIC=INPUT.tsv[,TOPIC=INPUT.tsv...]
//       prints "node ID HOST PORT" per broker of a Metadata answer, then sends every record of every
//       INPUT.tsv (lines KEY<TAB>BASE64-VALUE) idempotently with acks=all, in file order, and prints
//       "ack TOPIC PARTITION OFFSET KEY" per acknowledged record and "sent N" at the end.
//   node rdkafka_client.js produce-for BOOTSTRAP TOPIC KEYPREFIX SECONDS
//       sends KEYPREFIX-0, KEYPREFIX-1, ... (key = value) every 5 ms for SECONDS, idempotently with
//       acks=all; prints "ack TOPIC PARTITION OFFSET KEY" or "error KEY ERROR" per record and
//       "sent N settled N failed N" at the end; exit 0 when every record was acknowledged.
//   node rdkafka_client.js consume-topics BOOTSTRAP TOPIC[,TOPIC...] GROUP COUNT TIMEOUT_S
//       joins GROUP (classic protocol, subscribed to every TOPIC), prints
//       "TOPIC<TAB>PARTITION<TAB>OFFSET<TAB>KEY<TAB>BASE64-VALUE" per record and commits synchronously (a failed commit is logged and the next one carries the offsets)
//       after each batch, until COUNT records arrived (exit 0) or TIMEOUT_S passed (exit 3).
// Every line starting "librdkafka " on stdout is the version; errors and librdkafka events go to stderr.
// With WEFT_SASL_MECHANISM, WEFT_SASL_USERNAME and WEFT_SASL_PASSWORD set, every client authenticates with SASL.
'use strict';

const fs = require('fs');
const Kafka = require('@confluentinc/kafka-javascript');

function log(line) {
  process.stderr.write(`${line}\n`);
}

function common(bootstrap, clientId) {
  const config = {
    'bootstrap.servers': bootstrap,
    'client.id': clientId,
    'socket.timeout.ms': 30000,
    // a broker that closes the connection is logged, not retried silently forever
    'reconnect.backoff.max.ms': 2000,
  };
  // SASL from the environment (never on the command line): WEFT_SASL_MECHANISM, _USERNAME, _PASSWORD
  if (process.env.WEFT_SASL_MECHANISM) {
    config['security.protocol'] = 'sasl_plaintext';
    config['sasl.mechanisms'] = process.env.WEFT_SASL_MECHANISM;
    config['sasl.username'] = process.env.WEFT_SASL_USERNAME;
    config['sasl.password'] = process.env.WEFT_SASL_PASSWORD;
  }
  return config;
}

function connect(client) {
  return new Promise((resolve, reject) => {
    client.connect({ timeout: 30000 }, (err, metadata) => (err ? reject(err) : resolve(metadata)));
  });
}

function disconnect(client) {
  return new Promise((resolve) => client.disconnect(() => resolve()));
}

function watch(client, what) {
  client.on('event.error', (err) => log(`${what} error: ${err}`));
  client.on('event.log', (e) => log(`${what} ${e.severity} ${e.fac}: ${e.message}`));
}

async function produce(bootstrap, pairs) {
  const inputs = pairs.split(',').map((pair) => {
    const eq = pair.indexOf('=');
    const topic = pair.substring(0, eq);
    const records = fs.readFileSync(pair.substring(eq + 1), 'ascii').split('\n').filter((l) => l.length > 0)
      .map((l) => l.split('\t'))
      .map(([key, value]) => ({ key: Buffer.from(key, 'ascii'), value: Buffer.from(value, 'base64') }));
    return { topic, records };
  });
  const total = inputs.reduce((n, i) => n + i.records.length, 0);
  const producer = new Kafka.Producer({
    ...common(bootstrap, 'weft-conformance-rdkafka-producer'),
    'enable.idempotence': true,
    'acks': 'all',
    'linger.ms': 5,
    'compression.type': 'lz4',
    'dr_cb': true,
    'message.timeout.ms': 60000,
  });
  watch(producer, 'producer');
  let acked = 0;
  const errors = [];
  let allAcked;
  const done = new Promise((resolve) => { allAcked = resolve; });
  producer.on('delivery-report', (err, report) => {
    if (err) {
      errors.push(`${report && report.key}: ${err}`);
    } else {
      acked++;
      process.stdout.write(`ack ${report.topic} ${report.partition} ${report.offset} ${report.key.toString('ascii')}\n`);
    }
    if (acked + errors.length === total) {
      allAcked();
    }
  });
  const metadata = await connect(producer);
  for (const b of metadata.brokers.sort((x, y) => x.id - y.id)) {
    process.stdout.write(`node ${b.id} ${b.host} ${b.port}\n`);
  }
  producer.setPollInterval(10);
  for (const { topic, records } of inputs) {
    for (const r of records) {
      for (;;) {
        try {
          producer.produce(topic, null, r.value, r.key);
          break;
        } catch (e) {
          if (e.code !== Kafka.CODES.ERRORS.ERR__QUEUE_FULL) {
            throw e;
          }
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
      }
    }
  }
  await new Promise((resolve, reject) => producer.flush(60000, (err) => (err ? reject(err) : resolve())));
  const timeout = setTimeout(() => allAcked(), 30000);
  await done;
  clearTimeout(timeout);
  await disconnect(producer);
  process.stdout.write(`sent ${acked}\n`);
  if (errors.length > 0 || acked !== total) {
    log(`produce failed: ${acked} acked of ${total}, errors ${JSON.stringify(errors.slice(0, 20))}`);
    return 2;
  }
  return 0;
}

async function consume(bootstrap, topics, group, count, timeoutSeconds) {
  const consumer = new Kafka.KafkaConsumer({
    ...common(bootstrap, 'weft-conformance-rdkafka-consumer'),
    'group.id': group,
    'enable.auto.commit': false,
    'session.timeout.ms': 30000,
    'heartbeat.interval.ms': 1000,
  }, { 'auto.offset.reset': 'earliest' });
  watch(consumer, 'consumer');
  await connect(consumer);
  consumer.subscribe(topics);
  consumer.setDefaultConsumeTimeout(500);
  const deadline = Date.now() + timeoutSeconds * 1000;
  let received = 0;
  while (received < count && Date.now() < deadline) {
    const messages = await new Promise((resolve, reject) => consumer.consume(500, (err, m) => (err ? reject(err) : resolve(m))));
    if (messages.length === 0) {
      continue;
    }
    const lines = messages.map((m) => `${m.topic}\t${m.partition}\t${m.offset}\t${m.key ? m.key.toString('ascii') : ''}\t`
      + `${m.value ? m.value.toString('base64') : ''}\n`);
    process.stdout.write(lines.join(''));
    try {
      consumer.commitSync(null);
    } catch (e) {
      // as an application does: a commit refused around a rebalance (the group moved, the member is
      // unknown to the new coordinator) is logged and the next batch's commit carries the offsets
      log(`commit failed: ${e}`);
    }
    received += messages.length;
  }
  await disconnect(consumer);
  if (received < count) {
    log(`consumed only ${received} of ${count} records within ${timeoutSeconds} s`);
    return 3;
  }
  return 0;
}

// Sends "KEYPREFIX-i" every 5 ms for SECONDS (idempotent, acks=all), printing "ack TOPIC PARTITION OFFSET KEY"
// per acknowledged record and "error KEY ERROR" per failed one, then flushes; exit 0 when nothing failed.
async function produceFor(bootstrap, topic, keyPrefix, seconds) {
  const producer = new Kafka.Producer({
    ...common(bootstrap, 'weft-rdkafka-producer-' + keyPrefix),
    'enable.idempotence': true,
    'acks': 'all',
    'linger.ms': 5,
    'dr_cb': true,
    'message.timeout.ms': 30000,
    'topic.metadata.refresh.interval.ms': 5000,
  });
  watch(producer, 'producer');
  let sent = 0;
  let settled = 0;
  let failed = 0;
  producer.on('delivery-report', (err, report) => {
    settled++;
    const key = report && report.key ? report.key.toString('ascii') : '?';
    if (err) {
      failed++;
      process.stdout.write(`error ${key} ${err}\n`);
    } else {
      process.stdout.write(`ack ${report.topic} ${report.partition} ${report.offset} ${key}\n`);
    }
  });
  await connect(producer);
  producer.setPollInterval(10);
  const end = Date.now() + seconds * 1000;
  while (Date.now() < end) {
    const key = `${keyPrefix}-${sent}`;
    try {
      producer.produce(topic, null, Buffer.from(key, 'ascii'), Buffer.from(key, 'ascii'));
      sent++;
    } catch (e) {
      if (e.code !== Kafka.CODES.ERRORS.ERR__QUEUE_FULL) {
        throw e;
      }
    }
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  await new Promise((resolve) => producer.flush(40000, () => resolve()));
  const deadline = Date.now() + 10000;
  while (settled < sent && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  await disconnect(producer);
  process.stdout.write(`sent ${sent} settled ${settled} failed ${failed}\n`);
  return failed === 0 && settled === sent ? 0 : 2;
}

async function main(argv) {
  const version = require('@confluentinc/kafka-javascript/package.json').version;
  process.stdout.write(`librdkafka ${Kafka.librdkafkaVersion}\n`);
  log(`@confluentinc/kafka-javascript ${version}, librdkafka ${Kafka.librdkafkaVersion}, node ${process.version}`);
  if (argv.length === 1 && argv[0] === 'version') {
    return 0;
  }
  if (argv.length === 3 && argv[0] === 'produce') {
    return produce(argv[1], argv[2]);
  }
  if (argv.length === 5 && argv[0] === 'produce-for') {
    return produceFor(argv[1], argv[2], argv[3], Number(argv[4]));
  }
  if (argv.length === 6 && argv[0] === 'consume-topics') {
    return consume(argv[1], argv[2].split(','), argv[3], Number(argv[4]), Number(argv[5]));
  }
  log('usage: rdkafka_client.js version | produce BOOTSTRAP TOPIC=INPUT.tsv[,TOPIC=INPUT.tsv...] | '
    + 'consume-topics BOOTSTRAP TOPIC[,TOPIC...] GROUP COUNT TIMEOUT_S');
  return 64;
}

main(process.argv.slice(2)).then(
  (code) => { exit(code); },
  (err) => { log(`failed: ${err && err.stack ? err.stack : err}`); exit(2); },
);

// Ends with the code once the event loop is empty, or 2 s from now if a native handle keeps it alive.
function exit(code) {
  process.exitCode = code;
  setTimeout(() => process.exit(code), 2000).unref();
}
