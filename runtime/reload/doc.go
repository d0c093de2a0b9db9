// Package reload keeps a scheduler's policy, its plugin registry and its
// configuration, in step with the files they come from: the scheduler
// configuration file and the .wasm modules of the plugin directory. It
// loads the first policy at start and, while Watch runs, every later
// change, without a restart and without ever trading a working policy for
// a broken one.
//
// The path of a change, all of it off the scheduling path:
//
//	file lands ─▶ Watch: fsnotify on the directories (not the files, so that
//	              renames and Kubernetes' ..data symlink swap are seen),
//	              read after 20 ms of quiet; judged, if they do not load,
//	              once the directory has been quiet for the debounce
//	  ─▶ snapshot: every file read once; a digest of the whole set skips
//	              changes already tried
//	  ─▶ candidate: native plugins plus one factory per module; the
//	              configuration parsed and validated against them, which
//	              resolves each module it names: digest pin, then the
//	              module in service if it is unchanged, else compile,
//	              instantiate, check ABI and hooks, and a self-test session
//	              on a small in-memory cluster (SelfTest)
//	  ─▶ publish: one atomic swap of (registry, configuration) in the
//	              scheduler.PolicyStore; the next session uses it
//	  ─▶ retire: when the last session of the old policy ends, modules no
//	              policy uses any more are closed (instances, memory,
//	              compiled code)
//
// A candidate that fails at any step is discarded; the policy in service
// keeps serving, and the failure is logged with the file and the cause,
// counted in the metrics and handed to Options.Report.
package reload
