package shapes

// PowerShell lists shapes of PowerShell code that wear a reader down. The
// data shapes hold their repetitions in strings, here-strings and
// comments and end with a Remove-VM the reader must still find; the
// others nest, repeat or grow until they are past a limit of the reader.
var PowerShell = []Shape{
	{Name: "ps-parens-in-data", prefix: "Write-Output '", unit: "(", suffix: "'; Remove-VM web-01"},
	{Name: "ps-braces-in-data", prefix: "Write-Output \"", unit: "{@(", suffix: "\"; Remove-VM web-01"},
	{Name: "ps-here-string", prefix: "$s = @'\n", unit: "Stop-VM x $(y) `z ((\n", suffix: "'@\nRemove-VM web-01"},
	{Name: "ps-expandable-here-string", prefix: "$s = @\"\n", unit: "x $y `$(z) ((\n", suffix: "\"@\nRemove-VM web-01"},
	{Name: "ps-comments", unit: "# Stop-VM x ((({{{\n", suffix: "Remove-VM web-01"},
	{Name: "ps-block-comment", prefix: "<#\n", unit: "Stop-VM x ((( '\"\n", suffix: "#>\nRemove-VM web-01"},
	{Name: "ps-backticks", prefix: "Write-Output ", unit: "a` ", suffix: "; Remove-VM web-01"},
	{Name: "ps-unicode-quotes", prefix: "Write-Output \u2018", unit: "\u201c(", suffix: "\u2019; Remove-VM web-01"},
	{Name: "ps-deep-parens", unit: "(", close: ")", suffix: "Get-VM"},
	{Name: "ps-deep-blocks", unit: "& { ", close: " }", suffix: "Get-VM"},
	{Name: "ps-deep-subexpressions", unit: "$(", close: ")", suffix: "Get-VM"},
	{Name: "ps-deep-arrays", unit: "@(", close: ")", suffix: "1"},
	{Name: "ps-deep-hashes", unit: "@{a=", close: "}", suffix: "1"},
	{Name: "ps-deep-strings", unit: "\"$(", close: ")\"", suffix: "Get-VM"},
	{Name: "ps-deep-ifs", unit: "if ($x) { ", close: " }", suffix: "Get-VM"},
	{Name: "ps-pipeline", unit: "Get-VM | ", suffix: "Get-VM"},
	{Name: "ps-statements", unit: "Get-VM;"},
	{Name: "ps-lines", unit: "Get-VM\n"},
	{Name: "ps-programs", unit: "whoami\n"},
	{Name: "ps-distinct-lines", unit: "Stop-VM -VM vm", numbered: true},
	{Name: "ps-arguments", prefix: "Write-Output", unit: " x"},
	{Name: "ps-lists", prefix: "Write-Output a", unit: ",a"},
	{Name: "ps-members", prefix: "$x", unit: ".a"},
	{Name: "ps-iex-strings", unit: "iex 'Get-VM'\n"},
	{Name: "ps-remoting", unit: "icm -cn web-01 { Get-Service }\n"},
}
