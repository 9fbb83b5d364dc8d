/**
 * A table, so every score is explainable: a fired label is a reason.
 * Presence counts, not frequency, unless `each` says so (docs/conduit.md).
 */

export type TextLane = 'code' | 'reasoning' | 'extraction' | 'structured' | 'chat';

export interface TextScores {
  code: number;
  reasoning: number;
  extraction: number;
  structured: number;
  chat: number;
  /** In table order. */
  hits: string[];
}

interface Feature {
  lane: TextLane;
  label: string;
  weight: number;
  re: RegExp;
  /** Weight per match, capped (needs a /g regex). */
  each?: { cap: number };
  /** System-prompt multiplier (default 0.5: system prompts are boilerplate). */
  sys?: number;
}

const FEATURES: readonly Feature[] = [
  // ---- code -----------------------------------------------------------------------------------
  { lane: 'code', label: 'code fence', weight: 3, re: /```/ },
  {
    lane: 'code',
    label: 'stack trace or compiler error',
    weight: 4,
    re: /Traceback \(most recent call last\)|Exception in thread|\bgoroutine \d+ \[|\bpanic: |error\[E\d{3,4}\]|^\s+at [\w$.<>]+ \(?[^\s()]+:\d+(?::\d+)?\)?$|Segmentation fault|core dumped|double free|\b[A-Z]\w*(?:Error|Exception): /m,
  },
  {
    lane: 'code',
    label: 'code syntax',
    weight: 3,
    re: /^\s*(?:def \w|class \w+[:({]|fn \w|func \w|function\b|public |private |#include|import \S|from [\w.]+ import|package \w|const \w+ =|let \w+ =|var \w+ =|<\w+[ >/])|\bSELECT\b.+\bFROM\b|\bINSERT INTO\b|\bCREATE TABLE\b|=>|\)\s*\{|\bconsole\.log\(|\bprintf\(|System\.out|\b\w+\.\w+\([^)]*\)\s*[;)]?$|;\s*$/m,
  },
  { lane: 'code', label: 'diff', weight: 3, re: /^(?:diff --git|@@ -\d|[+-]{3} [ab]\/)/m },
  { lane: 'code', label: 'inline code', weight: 1.5, re: /`[^`\n]+`/ },
  {
    lane: 'code',
    label: 'programming language or tool',
    weight: 2.5,
    re: /\b(?:python|javascript|js|typescript|node(?:\.js)?|rust|golang|java|kotlin|swift(?:ui)?|c\+\+|c#|ruby|php|haskell|scala|elixir|perl|bash|powershell|sql|postgres(?:ql)?|mysql|sqlite|html|css|flexbox|react|vue|angular|svelte|django|flask|fastapi|express|spring boot|pandas|numpy|pytorch|tensorflow|docker(?:file)?|kubernetes|kubectl|k8s|terraform|ansible|git|github actions|npm|pnpm|yarn|pip|cargo|webpack|vite|regexp?|jsx|tsx|rest api|graphql|nginx|valgrind|pytest|jest|makefile|cmake|gradle|maven|cors|vim|emacs|vs ?code|cron(?:tab)?|shell script|aws|s3|gcp|azure|lambda|monads?|generics|orm|sdk|ci\/cd|webhooks?|oauth|jwt|websockets?|eslint|wasm|llvm|jvm|stdin|stdout|cli)\b/i,
  },
  { lane: 'code', label: 'programming language or tool', weight: 2.5, re: /\bgoroutines?\b|\b(?:in|with|using|my) (?:Go|C|C\+\+)\b/ },
  {
    lane: 'code',
    label: 'coding task',
    weight: 2,
    re: /\b(?:write|implement|create|build|fix|debug|refactor|optimi[sz]e|port|convert|rewrite|review|add|give me|show me|need)\b[^.?!\n]{0,60}\b(?:function|method|class|script|program|endpoint|query|regex|unit tests?|tests?|component|module|workflow|dockerfile|bug|code|algorithm|api|cli|one-liner|extension|middleware|hook|type hints|data class|struct|interface|module)\b/i,
  },
  {
    lane: 'code',
    label: 'computer-science term',
    weight: 2.5,
    re: /\b(?:time complexity|space complexity|big[ -]o|linked list|binary search|hash ?map|segfault|null pointer|borrow checker|race condition|deadlock|memoi[sz]ation|recursion|recursive|compiler?|compile error|runtime error|stack ?trace|type hints?|unit tests?|(?:post|get|http) requests?)\b/i,
  },
  {
    lane: 'code',
    label: 'programming vocabulary',
    weight: 0.75,
    each: { cap: 2.25 },
    re: /\b(?:async|await|callback|promise|closure|mutex|thread|pointer|variable|array|dict(?:ionary)?|iterate|boolean|integer|null|undefined|set ?state|use ?state|use ?effect|re-?renders?|merge conflict|deploy|container|pod|crashloopbackoff|localhost|endpoint|database|div|flexbox|debounce|throttle|fetch|json body|api|exception|function|funci[oó]n|fonction|funktion|method|class|module|library|framework|repo(?:sitory)?|codebase)\b/gi,
  },
  { lane: 'code', label: 'file name', weight: 1.5, re: /\b[\w-]+\.(?:py|js|mjs|cjs|ts|tsx|jsx|go|rs|java|kt|cpp|cc|hpp|rb|php|sql|ya?ml|sh|toml|cs|swift|vue)\b/ },
  { lane: 'code', label: 'identifier', weight: 1, each: { cap: 2 }, re: /\b[a-z]+_[a-z_]+\b|\b[a-z]+[A-Z][a-zA-Z]+\b|\b[a-zA-Z_]\w*\([\w\s,:='"]*\)/g },

  // ---- reasoning ------------------------------------------------------------------------------
  {
    lane: 'reasoning',
    label: 'proof',
    weight: 3,
    // "prove me wrong" is an idiom, not a request for a proof.
    re: /\b(?:prove(?! me wrong)|proof|theorem|lemma|corollary|by induction|derive|derivation|show (?:\w+ )?that|beweise?)\b/i,
  },
  {
    lane: 'reasoning',
    label: 'mathematics',
    weight: 2.5,
    re: /\b(?:integral|integrate|derivative|differentiate|limit as|eigen\w*|determinant|equations?|polynomial|quadratic|probability|expected value|variance|combinatori\w*|permutations?|factorial|modulo|primes?|divisible|gcd|lcm|logarithm|sqrt|square root|irrational|geometric series|arithmetic series|perimeter|integer solutions?|group of order|cyclic|concave|convex|compound interest|angle between|series|converges?|diverges?|expected number|trailing zeros|remainder|digits)\b|\b\d+!/i,
  },
  {
    lane: 'reasoning',
    label: 'math expression',
    weight: 1.5,
    re: /\d\s*[+*/^×÷]\s*\d|\b[a-z]\^\d|\b[xyzn]\s*[=<>≤≥]|\bf\(x\)|[a-zA-Z)]\s*=\s*-?\d|[√∫∑π]|\d+(?:\.\d+)?%/,
  },
  {
    lane: 'reasoning',
    label: 'logic puzzle',
    weight: 3,
    re: /\b(?:puzzle|riddle|logic(?:al)?|knaves?|always (?:lies?|tells? the truth)|syllogism|argument valid|valid argument|paradox|how many (?:ways|arrangements|seatings|combinations)|brain ?teaser|counterfeit|balance scale|labels? (?:is|are) wrong)\b/i,
  },
  {
    lane: 'reasoning',
    label: 'syllogism',
    weight: 3,
    re: /\b(?:all|some|no) \w+ are \w+\b.*\b(?:all|some|no) \w+ are\b/i,
  },
  {
    lane: 'reasoning',
    label: 'asks for careful reasoning',
    weight: 2.5,
    re: /\b(?:think (?:it )?(?:through|carefully)|reason (?:carefully|through)|show your (?:work|reasoning)|justify|work it out|explain your reasoning|rigorous(?:ly)?)\b/i,
  },
  {
    lane: 'reasoning',
    label: 'asks for steps',
    weight: 2,
    re: /\b(?:step[- ]by[- ]step|walk me through)\b/i,
  },
  {
    lane: 'reasoning',
    label: 'quantitative question',
    weight: 1.5,
    re: /\b(?:how (?:many|much|long|far|fast|thick)|on (?:what|which) day|when do they meet|steady[- ]state|calculate|compute|evaluate|estimate|solve|determine)\b/i,
  },
  { lane: 'reasoning', label: 'several numbers', weight: 1, re: /\d[\d,.]*\D+\d[\d,.]*/ },

  // ---- extraction (only counted when the text carries a source to extract from) ---------------
  {
    lane: 'extraction',
    label: 'extraction request',
    weight: 3,
    re: /\b(?:extract|extrae|extraire|pull (?:out|the)|pick out|grab|collect|enumerate|give me (?:every|all|each)|list (?:the|all|every|each)|(?:turn|convert|organi[sz]e|put)\b[^.\n]{0,40}\binto (?:csv|a table|a spreadsheet|columns|fields|key[- ]value)|find (?:all|every)|identify (?:all|the|every|each)|get me (?:all|every)|parse (?:this|these|the|it)|capture (?:the|all)|which \w+s? (?:appear|are mentioned)|what \w+(?: and \w+)? are mentioned|(?:mentioned|appear) in (?:this|the))\b/i,
  },
  {
    lane: 'extraction',
    label: 'target fields',
    weight: 1.5,
    re: /\binto (?:fields|columns|a table|csv|structured data|key[- ]value)|\bwith columns\b|\bfields\b|\b(?:give me|make|create) a table of\b/i,
  },

  // ---- structured output asked for in prose ---------------------------------------------------
  {
    lane: 'structured',
    label: 'asks for JSON output',
    weight: 4,
    sys: 1,
    re: /\b(?:respond|answer|reply|output|return|format|always answer)\b[^.\n]{0,40}\bjson\b|\bvalid json\b|\bjson (?:object|array|schema)\b|\bjust the json\b|\bno prose\b|\bin json\b/i,
  },

  // ---- open-ended chat ------------------------------------------------------------------------
  {
    lane: 'chat',
    label: 'creative writing',
    weight: 2.5,
    re: /\b(?:poem|haiku|limerick|story|stories|essay|toast|song|lyrics|cover letter|linkedin post|blog post|speech|novel|chapters?|slogan|tagline|product description|wedding|birthday|po[eè]me?|poema|gedicht|cuento|histoire)\b/i,
  },
  {
    lane: 'chat',
    label: 'advice or open-ended request',
    weight: 1.5,
    re: /\b(?:advice|tips|recommend|suggest|ideas|brainstorm|pros and cons|should i|help me (?:prepare|plan|decide|write|outline)|feedback on|how (?:do|can|should) i|how to|how does|why (?:do|does|is|are) (?!my)|what(?:'s| is) the best|best way|what can i do|prove me wrong|opinion|what are (?:some|the main|the key)|differences? between|ways to|give me a)\b/i,
  },
];

/** A source to extract from: a colon-introduced block, a quote, "this email". */
const SOURCE_TEXT =
  /:\s*\n|\bhere(?:'s| is| are) (?:a|an|the|my|our|some)\b|:\s*["'“]|:\s+\S.{15,}|\bbelow\b|\b(?:from|in) (?:the following|these)\b|\b(?:this|these|the following) (?:text|emails?|articles?|paragraphs?|log|notes?|documents?|receipt|invoice|resume|transcript|chat log|markdown|press release|reviews?|recipe|contract|clause|discharge note|posting|list)\b/i;

export function emptyScores(): TextScores {
  return { code: 0, reasoning: 0, extraction: 0, structured: 0, chat: 0, hits: [] };
}

/** `factor` scales the evidence. */
export function scoreText(text: string, into: TextScores, role: 'user' | 'system', factor = 1): void {
  if (text.length === 0) return;
  // A long message carries its own material even without a telltale colon.
  const hasSource = text.length > 300 || SOURCE_TEXT.test(text);
  for (const f of FEATURES) {
    if (f.lane === 'extraction' && !hasSource) continue;
    const { re } = f;
    let w: number;
    if (f.each) {
      re.lastIndex = 0;
      let n = 0;
      while (n * f.weight < f.each.cap && re.exec(text) !== null) n++;
      if (n === 0) continue;
      w = Math.min(f.each.cap, n * f.weight);
    } else {
      if (!re.test(text)) continue;
      w = f.weight;
    }
    const m = (role === 'system' ? (f.sys ?? 0.5) : 1) * factor;
    into[f.lane] += w * m;
    if (!into.hits.includes(f.label)) into.hits.push(f.label);
  }
}

/** Pure greetings, thanks and acknowledgements: short chat whatever came before. */
const SMALL_TALK =
  /^(?:hi|hello|hey|yo|hiya|howdy|good (?:morning|afternoon|evening|night)|goodnight|thanks?|thank you|thx|ty|cheers|ok(?:ay)?|cool|nice|great|lol|yes|no|yep|nope|sure|bye|see you|bonjour|hola|hallo|ciao|salut|merci|gracias|danke|sounds good|got it|perfect|awesome)\b/i;
const ONLY_EMOJI = /^[\p{Extended_Pictographic}\s\u200d\ufe0f]+$/u;

export function isSmallTalk(text: string): boolean {
  const t = text.trim();
  return (t.length <= 45 && SMALL_TALK.test(t)) || (t.length > 0 && t.length <= 16 && ONLY_EMOJI.test(t));
}

/** A short message with one of these is chat, not small talk. */
export const GENERATIVE =
  /\b(?:write|écris|escribe|schreibe?|draft|compose|create|generate|brainstorm|summari[sz]e|explain|describe|rewrite|translate|recommend|plan|outline|tell me about|compare|give me (?:ideas|a list)|make (?:my|me|a))\b/i;
