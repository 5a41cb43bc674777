// Node flags every production start path gives a service (package.json start:ingest,
// deploy/Dockerfile, deploy/docker-compose.yml, deploy/local/cluster.sh, scripts/start.ts, the
// drill and the bench; node-flags.test.ts and deploy/compose.test.ts keep them in step).
//
// Ingest: a batch of 100 events allocates a few hundred KiB of short-lived strings and objects
// (parsed JSON, validated copies, Avro buffers). With V8's default 16 MiB semi-space the young
// generation fills every few hundred requests and scavenges often enough to show in the batch
// path's CPU per event; at 64 MiB it scavenges a quarter as often. Measured in interleaved bench
// pairs (bench/HISTORY.md, "Two small things on the ingest path"): batches measurably cheaper per event,
// single events unchanged, ingest RSS under flat-out batches about 90 MiB higher and flat over a
// 5-minute soak. The flag cannot be set from inside the process: V8 sizes the heap at start.
export const INGEST_NODE_FLAGS: readonly string[] = ['--max-semi-space-size=64']

/** The node flags for a service by name ('ingest', 'projector', 'dashboard'); none for the others. */
export function nodeFlagsFor(service: string): readonly string[] {
  return service === 'ingest' ? INGEST_NODE_FLAGS : []
}
