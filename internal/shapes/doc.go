// Package shapes generates shell commands of the shapes that wear an
// analysis down: long repetitions, deep nesting, wrapper chains, large
// data and mixed quoting, at any size, and the inputs of MCP tools that
// hand code on (MCP). The shell benchmarks, the fuzz targets, the policy's
// bound tests and the hook benchmark under bench/ build their inputs here.
package shapes
