// The V8 flags `svc` runs with: build.mjs bakes them into the binary (SEA execArgv), and the
// benches that run svc from source (gc, instructions, profile-chat) pass the same ones, so a profile
// of the source sees the heap the binary has.
//
// --max-semi-space-size=4: V8 sizes the young generation for throughput (up to 3 × 16 MB
//   semi-spaces and more on big hosts): under gateway load that alone took RSS from ~165 to
//   ~240-300 MB with no measurable CPU gain (bench gateway: 407 vs 437 µs per request, within
//   noise). 4 MB keeps serve ≤ 200 MB.
// --heap-growing-percent=30: under gateway load V8 kept raising the old-generation limit (RSS
//   230 MB at 32 connections while the live heap stayed ~25 MB); 30% growth keeps it ~165 MB.
export const V8_FLAGS = ['--max-semi-space-size=4', '--heap-growing-percent=30'];
