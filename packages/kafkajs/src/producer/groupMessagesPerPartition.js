// Deviation from kafkajs 2.2.4 (../../CHANGES.md, "groupMessagesPerPartition"): the same
// partition -> messages object, messages in order, built in one pass. Upstream adds each message
// with `[...current, message]`, a copy of the partition's list per message (quadratic in the records
// of a partition in one send). The upstream file is kept beside this one as
// groupMessagesPerPartition.upstream.js, the reference of the differential test.
module.exports = ({ topic, partitionMetadata, messages, partitioner }) => {
  if (partitionMetadata.length === 0) {
    return {}
  }

  const result = {}
  for (const message of messages) {
    const partition = partitioner({ topic, partitionMetadata, message })
    const list = result[partition]
    if (list) list.push(message)
    else result[partition] = [message]
  }
  return result
}
