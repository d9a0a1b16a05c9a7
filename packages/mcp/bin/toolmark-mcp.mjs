#!/usr/bin/env node
// The `toolmark-mcp` command. It lives outside dist/ so that installing the workspace links it
// before anything is built; it runs the built CLI.
import '../dist/cli.mjs'
