-- A headless Neovim as the language server's client (crates/cli/tests/lsp_neovim.rs): attaches
-- `agentpi lsp` to the file $PI_FILE with the built-in client, waits for its diagnostics, asks
-- each request of $PI_ASK (a JSON list of {method, line, character}), and writes what Neovim
-- holds (its diagnostics, with the byte columns it made of the server's UTF-16 ones, and each
-- answer) as JSON to $PI_OUT. Neovim 0.7 (Debian's) API only.
local file, out = os.getenv("PI_FILE"), os.getenv("PI_OUT")
local asks = vim.json.decode(os.getenv("PI_ASK"))
vim.cmd("edit " .. vim.fn.fnameescape(file))
local buf = vim.api.nvim_get_current_buf()
local published = false
local id = vim.lsp.start_client({
  name = "agentpi",
  cmd = { os.getenv("AGENTPI"), "lsp" },
  root_dir = vim.fn.fnamemodify(file, ":h"),
  handlers = {
    ["textDocument/publishDiagnostics"] = function(err, result, ctx, config)
      vim.lsp.diagnostic.on_publish_diagnostics(err, result, ctx, config)
      published = true
    end,
  },
})
vim.lsp.buf_attach_client(buf, id)
local report = { asks = {} }
if not vim.wait(20000, function() return published end, 20) then
  report.error = "no diagnostics were published"
end
report.diagnostics = {}
for _, d in ipairs(vim.diagnostic.get(buf)) do
  table.insert(report.diagnostics, {
    lnum = d.lnum, col = d.col, end_lnum = d.end_lnum, end_col = d.end_col,
    severity = d.severity, code = d.code, message = d.message,
  })
end
local client = vim.lsp.get_client_by_id(id)
for _, ask in ipairs(asks) do
  local params = {
    textDocument = { uri = vim.uri_from_bufnr(buf) },
    position = { line = ask.line, character = ask.character },
  }
  local answer = client.request_sync(ask.method, params, 10000, buf)
  table.insert(report.asks, {
    method = ask.method, line = ask.line, character = ask.character,
    result = answer and answer.result, error = answer and answer.err,
  })
end
vim.fn.writefile({ vim.json.encode(report) }, out)
client.stop()
vim.wait(5000, function() return client.is_stopped() end, 20)
vim.cmd("qall!")
