// The V8 flags `svc` runs with: build.mjs bakes them into the binary (SEA execArgv), and the
// benches that run svc from source (gc, instructions, profile-chat) pass the same ones, so a profile
// of the source sees the heap the binary has.
//
// --max-semi-space-size=8: V8 sizes the young generation for throughput (up to 3 × 16 MB
//   semi-spaces and more on big hosts): under gateway load that alone took RSS from ~165 to
//   ~240-300 MB with no measurable CPU gain. 4 MB (sessions 2-3) put a scavenge in every ~80th
//   request at c=1 (1.2% of requests: inside the p99) and every ~43rd streamed one; 8 MB halves
//   both (`npm run bench -- gc`: 36 vs 73 and 65 vs 141 scavenges per 6,000 requests; mean pause
//   0.7 → 1.0 ms and 0.5 → 0.9 ms; total pause time down 30% and 17%) for ~6-9 MB more RSS under
//   load (144-148 vs 138 MB at 32 connections; idle RSS unchanged at 60 MB). 16 MB: 157-159 MB.
// --heap-growing-percent=30: under gateway load V8 kept raising the old-generation limit (RSS
//   230 MB at 32 connections while the live heap stayed ~25 MB); 30% growth keeps it ~165 MB.
export const V8_FLAGS = ['--max-semi-space-size=8', '--heap-growing-percent=30'];
