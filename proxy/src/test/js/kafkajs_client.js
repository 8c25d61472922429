#!/usr/bin/env node
// A kafkajs client for Weft's conformance tests (dev.weft.proxy.conformance.KafkaJsConformanceTest).
//
//   node kafkajs_client.js produce BOOTSTRAP TOPIC INPUT.tsv
//       prints "node ID HOST PORT" per broker of describeCluster, then sends every record of INPUT.tsv
//       (lines KEY<TAB>BASE64-VALUE) idempotently with acks=all, in order, and prints "sent N".
//   node kafkajs_client.js consume BOOTSTRAP TOPIC GROUP COUNT TIMEOUT_S
//       joins GROUP, prints "PARTITION<TAB>OFFSET<TAB>KEY<TAB>BASE64-VALUE" per record and commits after
//       each batch, until COUNT records arrived (exit 0) or TIMEOUT_S passed (exit 3).
//   node kafkajs_client.js consume-topics BOOTSTRAP TOPIC[,TOPIC...] GROUP COUNT TIMEOUT_S
//       the same over several topics (dev.weft.proxy.weave tests), each line prefixed by "TOPIC<TAB>".
//   node kafkajs_client.js produce-with-headers BOOTSTRAP TOPIC INPUT.tsv NAME=VALUE[,NAME=VALUE...]
//       sends every record of INPUT.tsv (as for produce) with these headers on each, idempotently with
//       acks=all, in order, and prints "sent N" (dev.weft.proxy.weave.BranchRealClientsTest).
// With WEFT_SASL_MECHANISM set (PLAIN, SCRAM-SHA-256, SCRAM-SHA-512 with WEFT_SASL_USERNAME and
// WEFT_SASL_PASSWORD; OAUTHBEARER with WEFT_SASL_TOKEN, the bearer token), every client authenticates
// with SASL (dev.weft.proxy.security.SaslEndToEndTest); a refused password ends the run with exit 2 and
// "failed: KafkaJSSASLAuthenticationError: ..." on stderr. WEFT_KAFKAJS_RETRIES (default 8) sets kafkajs'
// retries, fewer for a run meant to fail.
'use strict';

const fs = require('fs');
const { Kafka, logLevel } = require('kafkajs');

function stderrLogger() {
  return ({ namespace, level, label, log }) => {
    const { message, ...extra } = log;
    process.stderr.write(`${label} [${namespace}] ${message} ${JSON.stringify(extra)}\n`);
  };
}

// SASL from the environment (never on the command line), as rdkafka_client.js takes it
function saslFromEnv() {
  const mechanism = process.env.WEFT_SASL_MECHANISM;
  if (!mechanism) {
    return undefined;
  }
  if (mechanism.toUpperCase() === 'OAUTHBEARER') {
    const value = process.env.WEFT_SASL_TOKEN;
    return { mechanism: 'oauthbearer', oauthBearerProvider: async () => ({ value }) };
  }
  return { mechanism: mechanism.toLowerCase(), username: process.env.WEFT_SASL_USERNAME, password: process.env.WEFT_SASL_PASSWORD };
}

function client(bootstrap, clientId) {
  return new Kafka({
    clientId,
    brokers: [bootstrap],
    sasl: saslFromEnv(),
    logLevel: logLevel.WARN,
    logCreator: stderrLogger,
    connectionTimeout: 10000,
    requestTimeout: 30000,
    retry: { retries: process.env.WEFT_KAFKAJS_RETRIES ? Number(process.env.WEFT_KAFKAJS_RETRIES) : 8 },
  });
}

async function produce(bootstrap, topic, inputPath) {
  const kafka = client(bootstrap, 'weft-conformance-kafkajs-producer');
  const admin = kafka.admin();
  await admin.connect();
  const cluster = await admin.describeCluster();
  for (const b of cluster.brokers.sort((x, y) => x.nodeId - y.nodeId)) {
    process.stdout.write(`node ${b.nodeId} ${b.host} ${b.port}\n`);
  }
  await admin.disconnect();

  const records = fs.readFileSync(inputPath, 'ascii').split('\n').filter((l) => l.length > 0)
    .map((l) => l.split('\t'))
    .map(([key, value]) => ({ key, value: Buffer.from(value, 'base64') }));
  const producer = kafka.producer({ idempotent: true, maxInFlightRequests: 1 });
  await producer.connect();
  const batchSize = 500;
  for (let i = 0; i < records.length; i += batchSize) {
    await producer.send({ topic, acks: -1, messages: records.slice(i, i + batchSize) });
  }
  await producer.disconnect();
  process.stdout.write(`sent ${records.length}\n`);
  return 0;
}

async function produceWithHeaders(bootstrap, topic, inputPath, headerList) {
  const kafka = client(bootstrap, 'weft-branch-kafkajs-producer');
  const headers = {};
  for (const pair of headerList.split(',').filter((h) => h.length > 0)) {
    const eq = pair.indexOf('=');
    headers[pair.slice(0, eq)] = pair.slice(eq + 1);
  }
  const records = fs.readFileSync(inputPath, 'ascii').split('\n').filter((l) => l.length > 0)
    .map((l) => l.split('\t'))
    .map(([key, value]) => ({ key, value: Buffer.from(value, 'base64'), headers }));
  const producer = kafka.producer({ idempotent: true, maxInFlightRequests: 1 });
  await producer.connect();
  const batchSize = 100;
  for (let i = 0; i < records.length; i += batchSize) {
    await producer.send({ topic, acks: -1, messages: records.slice(i, i + batchSize) });
  }
  await producer.disconnect();
  process.stdout.write(`sent ${records.length}\n`);
  return 0;
}

async function consume(bootstrap, topics, group, count, timeoutSeconds, withTopic) {
  const kafka = client(bootstrap, 'weft-conformance-kafkajs-consumer');
  const consumer = kafka.consumer({ groupId: group, sessionTimeout: 30000, heartbeatInterval: 1000 });
  await consumer.connect();
  await consumer.subscribe({ topics, fromBeginning: true });
  let received = 0;
  let done;
  const finished = new Promise((resolve) => { done = resolve; });
  const timer = setTimeout(() => done(false), timeoutSeconds * 1000);
  await consumer.run({
    autoCommit: false,
    eachBatch: async ({ batch, resolveOffset }) => {
      const lines = [];
      for (const m of batch.messages) {
        lines.push(`${withTopic ? `${batch.topic}\t` : ''}${batch.partition}\t${m.offset}\t${m.key ? m.key.toString('ascii') : ''}\t`
          + `${m.value ? m.value.toString('base64') : ''}\n`);
        resolveOffset(m.offset);
      }
      if (lines.length > 0) {
        process.stdout.write(lines.join(''));
        const next = (BigInt(batch.messages[batch.messages.length - 1].offset) + 1n).toString();
        await consumer.commitOffsets([{ topic: batch.topic, partition: batch.partition, offset: next }]);
        received += lines.length;
        if (received >= count) {
          done(true);
        }
      }
    },
  });
  const ok = await finished;
  clearTimeout(timer);
  await consumer.disconnect();
  if (!ok) {
    process.stderr.write(`consumed only ${received} of ${count} records within ${timeoutSeconds} s\n`);
    return 3;
  }
  return 0;
}

async function main(argv) {
  const kafkajsVersion = require('kafkajs/package.json').version;
  process.stderr.write(`kafkajs ${kafkajsVersion}, node ${process.version}\n`);
  if (argv.length === 4 && argv[0] === 'produce') {
    return produce(argv[1], argv[2], argv[3]);
  }
  if (argv.length === 6 && argv[0] === 'consume') {
    return consume(argv[1], [argv[2]], argv[3], Number(argv[4]), Number(argv[5]), false);
  }
  if (argv.length === 6 && argv[0] === 'consume-topics') {
    return consume(argv[1], argv[2].split(','), argv[3], Number(argv[4]), Number(argv[5]), true);
  }
  if (argv.length === 5 && argv[0] === 'produce-with-headers') {
    return produceWithHeaders(argv[1], argv[2], argv[3], argv[4]);
  }
  process.stderr.write('usage: kafkajs_client.js produce BOOTSTRAP TOPIC INPUT.tsv | '
    + 'produce-with-headers BOOTSTRAP TOPIC INPUT.tsv NAME=VALUE[,NAME=VALUE...] | '
    + 'consume BOOTSTRAP TOPIC GROUP COUNT TIMEOUT_S | consume-topics BOOTSTRAP TOPIC[,TOPIC...] GROUP COUNT TIMEOUT_S\n');
  return 64;
}

main(process.argv.slice(2)).then(
  (code) => { process.exitCode = code; },
  (err) => { process.stderr.write(`failed: ${err && err.stack ? err.stack : err}\n`); process.exitCode = 2; },
);
