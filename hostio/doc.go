// Package hostio translates between an agent host's hook protocol and rewind.
//
// It sits at both ends of the hook's data flow: [Decode] turns the JSON event
// the host writes on the hook's standard input into an [Event], whose
// [Event.Call] is what the policy judges; after the decision is taken,
// [Encode] writes rewind's [Decision] in the shape that host reads from the
// hook's standard output.
//
// Each host speaks its own dialect, named by a [Host]. Only Claude Code is
// supported today. Its PreToolUse event carries session_id, transcript_path,
// cwd, permission_mode, hook_event_name, tool_name, tool_input and
// tool_use_id; its answer is a single JSON object with hookSpecificOutput
// (permissionDecision, permissionDecisionReason, additionalContext) and a
// top-level systemMessage. An empty standard output lets the host's normal
// permission flow go on, which is why the zero [Decision] encodes to nothing.
package hostio
