package web

import (
	"embed"
	"io/fs"
	"net/http"
	"os"
	"strings"

	"github.com/gin-gonic/gin"
)

// uiFiles is the web chat, embedded: serving it needs no build step.
//
//go:embed all:ui
var uiFiles embed.FS

// uiPolicy keeps the page to its own scripts and styles: no inline script,
// no injected markup can run, load or post anywhere.
const uiPolicy = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
	"object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

// uiFS is the UI's files: embedded, or the folder dir when set (the
// development flag --ui-dir, so edits show on reload).
func uiFS(dir string) fs.FS {
	if dir != "" {
		return os.DirFS(dir)
	}
	sub, err := fs.Sub(uiFiles, "ui")
	if err != nil {
		panic(err) // the embedded folder is part of the binary
	}
	return sub
}

// registerUI serves the web chat at / and its files under /assets/; any
// other page path (not the API) gets the app too, which routes itself.
func registerUI(e *gin.Engine, s *Server, dir string) {
	files := uiFS(dir)
	assets := http.StripPrefix("/assets/", http.FileServer(http.FS(files)))
	serveAsset := func(c *gin.Context) {
		c.Header("Content-Security-Policy", uiPolicy)
		c.Header("X-Content-Type-Options", "nosniff")
		c.Header("Cache-Control", "no-cache")
		assets.ServeHTTP(c.Writer, c.Request)
	}
	e.GET("/assets/*path", serveAsset)
	e.HEAD("/assets/*path", serveAsset)
	e.GET("/", func(c *gin.Context) { s.serveIndex(c, files) })
	s.index = func(c *gin.Context) bool {
		p := c.Request.URL.Path
		if c.Request.Method != http.MethodGet || strings.HasPrefix(p, "/api/") || strings.HasPrefix(p, "/v1/") || strings.Contains(p, ".") {
			return false
		}
		s.serveIndex(c, files)
		return true
	}
}

func (s *Server) serveIndex(c *gin.Context, files fs.FS) {
	b, err := fs.ReadFile(files, "index.html")
	if err != nil {
		c.String(http.StatusInternalServerError, "the web chat is missing from this build")
		return
	}
	c.Header("Content-Security-Policy", uiPolicy)
	c.Header("X-Content-Type-Options", "nosniff")
	c.Header("Referrer-Policy", "no-referrer")
	c.Header("Cache-Control", "no-cache")
	c.Data(http.StatusOK, "text/html; charset=utf-8", b)
}
