package shell

// readAwk reads awk: system(CMD), "CMD" | getline, and print or printf
// ... | "CMD", where CMD is a string or a concatenation of strings.
func readAwk(r *interpResult, toks []token) {
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		switch {
		case t.kind == tIdent && t.text == "system" && isPunct(toks, i+1, "("):
			args, end := r.callArgs(toks, i+1)
			r.command("system", args, 0, "", true, false)
			i = end - 1
		case isPunct(toks, i, "|") && i+1 < len(toks) && (toks[i+1].kind == tIdent && toks[i+1].text == "getline" || isPunct(toks, i+1, "&")):
			// CMD | getline: CMD is the expression before the pipe, back
			// to the statement's start.
			start := i
			for start > 0 && !isPunct(toks, start-1, ";") && !isPunct(toks, start-1, "{") && !isPunct(toks, start-1, "(") && !isPunct(toks, start-1, "=") {
				start--
			}
			if !r.spend(i - start) {
				return
			}
			r.command("getline", [][]token{toks[start:i]}, 0, "", true, false)
		case isPunct(toks, i, "|") && i > 0 && !isPunct(toks, i-1, "|") && !isPunct(toks, i+1, "|"):
			// print ... | CMD: CMD runs to the statement's end.
			end := i + 1
			for end < len(toks) && !isPunct(toks, end, ";") && !isPunct(toks, end, "}") {
				end++
			}
			if end == i+1 {
				continue
			}
			printing := false
			for k := i - 1; k >= 0 && !isPunct(toks, k, ";") && !isPunct(toks, k, "{"); k-- {
				if toks[k].kind == tIdent && (toks[k].text == "print" || toks[k].text == "printf") {
					printing = true
				}
			}
			if printing {
				r.command("print |", [][]token{toks[i+1 : end]}, 0, "", true, false)
			}
			i = end - 1
		}
	}
}
