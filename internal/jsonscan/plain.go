package jsonscan

import (
	"encoding/binary"
	"math/bits"
)

// plainRun returns how many bytes at the start of s a JSON string holds
// as they are: not a quote, a backslash or a control character, nor, with
// asciiOnly, a byte past ASCII. It reads eight bytes at a time, which on a
// 200 KB command is most of the work of checking and unescaping it.
func plainRun(s []byte, asciiOnly bool) int {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	i := 0
	for ; len(s)-i >= 8; i += 8 {
		w := binary.LittleEndian.Uint64(s[i:])
		// The high bit of each byte that is below 0x20, a quote or a
		// backslash; the lowest one set is the first such byte (a borrow
		// can only mark a byte after it).
		m := (w - 0x20*ones) &^ w & highs
		q, b := w^('"'*ones), w^('\\'*ones)
		m |= (q-ones)&^q&highs | (b-ones)&^b&highs
		if asciiOnly {
			m |= w & highs
		}
		if m != 0 {
			return i + bits.TrailingZeros64(m)/8
		}
	}
	for ; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == '"' || c == '\\' || asciiOnly && c >= 0x80 {
			break
		}
	}
	return i
}
