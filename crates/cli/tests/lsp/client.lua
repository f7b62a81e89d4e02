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
-- `codeLens/run`: the lens of the ask's line run as Neovim's `vim.lsp.codelens.run` does (the
-- server executes its command), then the diagnostics once the check's verdict is among them.
local function run_lens(ask)
  local lenses = client.request_sync("textDocument/codeLens",
    { textDocument = { uri = vim.uri_from_bufnr(buf) } }, 10000, buf).result
  for _, lens in ipairs(lenses) do
    if lens.range.start.line == ask.line then
      client.request_sync("workspace/executeCommand", lens.command, 10000, buf)
    end
  end
  vim.wait(60000, function()
    for _, d in ipairs(vim.diagnostic.get(buf)) do
      if d.code == "check" then return true end
    end
    return false
  end, 20)
  local after = client.request_sync("textDocument/codeLens",
    { textDocument = { uri = vim.uri_from_bufnr(buf) } }, 10000, buf).result
  local found = { lenses = {}, diagnostics = {} }
  for _, lens in ipairs(after) do table.insert(found.lenses, lens.command.title) end
  for _, d in ipairs(vim.diagnostic.get(buf)) do
    table.insert(found.diagnostics, { lnum = d.lnum, code = d.code, message = d.message,
      related = d.user_data and d.user_data.lsp and d.user_data.lsp.relatedInformation })
  end
  return found
end

local function request(ask)
  local params = {
    textDocument = { uri = vim.uri_from_bufnr(buf) },
    position = { line = ask.line, character = ask.character },
  }
  local answer = client.request_sync(ask.method, params, 10000, buf)
  return {
    method = ask.method, line = ask.line, character = ask.character,
    result = answer and answer.result, error = answer and answer.err,
  }
end

for _, ask in ipairs(asks) do
  if ask.method == "codeLens/run" then
    table.insert(report.asks, { method = ask.method, line = ask.line, result = run_lens(ask) })
  else
    table.insert(report.asks, request(ask))
  end
end
vim.fn.writefile({ vim.json.encode(report) }, out)
client.stop()
vim.wait(5000, function() return client.is_stopped() end, 20)
vim.cmd("qall!")
