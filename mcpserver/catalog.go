package mcpserver

import (
	"bytes"
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/rewind-dev/rewind/policy"
)

// catalogURI names the effective rules resource.
const catalogURI = "rewind://catalog"

func (s *Server) addResources() {
	s.srv.AddResource(&mcp.Resource{
		URI:   catalogURI,
		Name:  "catalog",
		Title: "rewind's effective rules",
		Description: "The rules rewind judges tool calls by, in the order they are tried, as `rewind catalog` prints them: " +
			"the config's rules first, then the built-in catalog's; within a list the first matching rule wins.",
		MIMEType: "text/plain",
	}, s.readCatalog)
}

func (s *Server) readCatalog(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	if req.Params.URI != catalogURI {
		return nil, mcp.ResourceNotFoundError(req.Params.URI)
	}
	cfg, err := s.config()
	if err != nil {
		return nil, err
	}
	pol, err := policy.New(cfg)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	if err := pol.WriteRules(&b); err != nil {
		return nil, err
	}
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: catalogURI, MIMEType: "text/plain", Text: b.String()}}}, nil
}

// addTools adds every tool of the server.
func (s *Server) addTools() {
	s.addCheck()
	s.addZerto()
	s.addPoints()
	s.addRecovery()
}
