// Added to kafkajs 2.2.4 (CHANGES.md): what this copy is. The project's Kafka port
// (services/shared/src/kafka/) reports it as the kafka_client_info metric, and a test fails if any
// process loads a kafkajs without it (an npm copy, which has the upstream files of CHANGES.md).
module.exports = Object.freeze({
  upstreamVersion: '2.2.4',
  // The files of src/ that differ from the npm tarball; each one's upstream copy is beside it as
  // <name>.upstream.js.
  replaced: Object.freeze([
    'producer/groupMessagesPerPartition.js',
    'protocol/recordBatch/crc32C/index.js',
    'protocol/recordBatch/record/v0/index.js',
    'protocol/recordBatch/record/v0/decoder.js',
    'protocol/recordBatch/v0/decoder.js',
    'protocol/requests/produce/v3/request.js',
    'protocol/request.js',
  ]),
})
