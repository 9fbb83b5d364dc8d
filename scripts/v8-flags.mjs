// Baked into the binary and passed by the source benches, so profiles see the binary's heap.
// Both cap RSS under gateway load at no CPU cost; figures in docs/performance.md.
export const V8_FLAGS = ['--max-semi-space-size=8', '--heap-growing-percent=30'];
