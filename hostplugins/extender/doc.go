// Package extender delegates scheduling decisions to an HTTP server, wire
// compatible with Volcano's extender plugin: the same arguments, the same
// verbs appended to the same URL prefix, the same JSON bodies (Volcano's
// TaskInfo, NodeInfo, JobInfo and QueueInfo as Go's encoder writes them), so
// that an extender written for Volcano works unchanged.
//
// Each call is a POST of JSON to <extender.urlPrefix>/<verb>, and a hook
// takes part in the session only when its verb is set:
//
//	verb argument                 hook            request            answer
//	extender.onSessionOpenVerb    session open    the whole snapshot (not read)
//	extender.onSessionCloseVerb   session close   {}                 (not read)
//	extender.predicateVerb        predicate       {task, node}       {status, code}
//	extender.batchPredicateVerb   predicate       {task, nodes}      {nodeStatus: {node: {status, code}}}
//	extender.prioritizeVerb       batchNodeOrder  {task, nodes}      {nodeScore, errorMessage}
//	extender.preemptableVerb      preemptable     {evictor, evictees} {status, victims}
//	extender.reclaimableVerb      reclaimable     {evictor, evictees} {status, victims}
//	extender.queueOverusedVerb    overused        {queue}            {overused}
//	extender.jobEnqueueableVerb   jobEnqueueable  {job}              {status: 1, 0 or -1}
//	extender.jobEnqueuedVerb      jobEnqueued     {job}              {}
//	extender.jobReadyVerb         jobReady        {job}              {status: bool}
//	extender.allocateFuncVerb     event handler   {task}             {errorMessage}
//	extender.deallocateFuncVerb   event handler   {task}             {errorMessage}
//
// Other arguments: extender.urlPrefix, extender.httpTimeout (default 1s),
// extender.ignorable (default false), extender.managedResources (a list:
// then the task-level calls are made only for tasks that request or limit
// one of these resources), and Caldera's extender.maxConcurrentRequests
// (default 16), extender.batchPredicateVerb, extender.failFast and
// extender.failClosed.
//
// Failures. A call fails on a timeout, a transport error, an HTTP status
// other than 200, or an answer that is not the expected JSON (or larger
// than 10 MiB). What a failure means is Volcano's, call by call: a required
// extender's predicate rejects the node, its score fails (the task gets no
// node this time), preemptable and reclaimable allow no victim, the queue
// counts as overused, the job is not enqueued but is ready, and the
// placement allocateFunc was told of is undone; a failed onSessionOpen
// makes it sit the session out, every hook answering as if it were not
// configured. An ignorable extender is asked again on every call, and its
// failure passes the node, scores nothing, allows no victim, leaves the
// queue not overused, permits the job, says it is not ready and lets the
// placement stand. An errorMessage in an answer (prioritize, allocateFunc)
// acts under both policies. Caldera's extender.failFast takes an ignorable
// extender out of the session at its first failure; extender.failClosed
// makes a required one say "not ready" on a failed jobReady and fail every
// decision of the session after a failed onSessionOpen. Errors name the
// call, the URL, the HTTP status and the cause; they are logged (the first
// per call and session at error level) and counted in the metrics
// caldera_extender_request_latency_microseconds{call} and
// caldera_extender_request_failures_total{call, cause}.
//
// Connections. Plugins made by one factory (NewFactory) share one HTTP
// client per extender address, timeout and concurrency limit, with idle
// connections kept open between sessions; at most
// extender.maxConcurrentRequests requests are in flight at once, and the
// wait for a free slot counts against the timeout.
//
// docs/extender.md describes the bodies field by field, the failure
// answers and the options, and what the HTTP hop costs next to a Wasm
// plugin.
package extender
