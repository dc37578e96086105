// Package engine runs a pipeline's steps over frames, in process: the
// steps of a data.sequence (DOMAIN.md, "The pipeline language") are
// checked by Verify and run by Engine.Run, each step receiving the frame
// produced by the previous one.
//
// # Steps and bots
//
// A step is a tag and a query. "@ns:bot k = 'v' & k2 = 'v2'" calls a bot
// with parameters written in the restricted query language of botquery.Parse;
// "*ns:bot <cfxql>" calls a bot with a full CFXQL query (package cfxql).
// Bots() documents every bot and its parameters.
//
// # Blocks, loops and conditionals
//
// "@c:new-block" ends a block and starts the next one with an empty frame;
// the output of a run is the final frame of the last block.
//
// A loop tag ("@c:simple-loop", "@c:count-loop", "@c:data-loop",
// "@c:timed-loop") makes the steps after it, up to the next
// "@c:new-block", the end of the pipeline or the "@exec:end-if" closing a
// conditional that encloses the loop, its body. The body runs once per
// value, each time from the frame the loop received, with the loop's
// variables substituted: "$name" (or "${name}") in the parameter values of
// "@" steps and in the query text of "*" steps is replaced by the value.
// A loop nested in a body makes the rest of that body its own body. The
// outputs of the iterations are concatenated (the union of their columns)
// into the loop's output; no iteration gives an empty frame. A timed loop,
// which may run for the life of a service, outputs its last iteration's
// frame instead.
//
// "*exec:if-shape <cfxql>" evaluates its query over the dict
// {num_rows, num_columns} of the frame in hand; the steps up to the
// matching "@exec:end-if" run only when it matches, and otherwise the frame
// passes through unchanged. Conditionals nest, and may not span a block.
//
// # Datasets
//
// Datasets whose names begin with "temp-" live in the engine's memory for
// the duration of one Run and never reach the Store; the others are loaded
// and saved through Store.
//
// # Cancellation
//
// Run checks its context between steps, between loop iterations, while a
// timed loop waits and while eval evaluates rows, and returns ctx.Err()
// when it is done.
package engine
