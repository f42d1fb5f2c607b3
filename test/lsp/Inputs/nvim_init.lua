-- Neovim 0.7+ headless client for test/lsp/neovim.test: starts `gradlint server` through the
-- built-in LSP client, opens a file with a leak, waits for the diagnostics and writes them
-- out, fixes the leak with a buffer edit, waits for the diagnostics to clear, and quits.
-- Every wait is bounded; on a failure it writes `FAIL: why` and exits non-zero.
local gradlint = os.getenv("GRADLINT_BIN")
local file = os.getenv("GRADLINT_NVIM_FILE")
local out = assert(io.open(os.getenv("GRADLINT_NVIM_OUT"), "w"))

local function write(line)
  out:write(line, "\n")
  out:flush()
end

local function finish(status)
  out:close()
  vim.cmd(status == 0 and "qa!" or "cq!")
end

local function fail(why)
  write("FAIL: " .. why)
  finish(1)
end

vim.cmd("edit " .. vim.fn.fnameescape(file))
local bufnr = vim.api.nvim_get_current_buf()
local client_id = vim.lsp.start_client({
  name = "gradlint",
  cmd = { gradlint, "server" },
  root_dir = vim.fn.fnamemodify(file, ":p:h"),
  on_exit = function(code) if code ~= 0 then write("server exited with " .. code) end end,
})
if not client_id then return fail("vim.lsp.start_client") end
vim.lsp.buf_attach_client(bufnr, client_id)

-- Neovim's diagnostics: 0-based lines, byte columns (converted from the server's UTF-16).
local function dump(tag)
  for _, d in ipairs(vim.diagnostic.get(bufnr)) do
    local code = d.code or (d.user_data and d.user_data.lsp and d.user_data.lsp.code)
    write(string.format("%s %s %d:%d-%d:%d %s", tag, tostring(code), d.lnum, d.col, d.end_lnum,
                        d.end_col, d.message))
  end
end

if not vim.wait(30000, function() return #vim.diagnostic.get(bufnr) > 0 end, 20) then
  return fail("no diagnostics within 30 s")
end
dump("open")

-- Fix the leak: `set_grad_enabled(False)` -> `set_grad_enabled(True)` on the finding's line.
local row = vim.diagnostic.get(bufnr)[1].lnum
local text = vim.api.nvim_buf_get_lines(bufnr, row, row + 1, true)[1]
local col = text:find("False", 1, true)
if not col then return fail("no `False` on line " .. row) end
vim.api.nvim_buf_set_text(bufnr, row, col - 1, row, col + 4, { "True" })

if not vim.wait(30000, function() return #vim.diagnostic.get(bufnr) == 0 end, 20) then
  dump("stale")
  return fail("diagnostics not cleared within 30 s")
end
write("cleared")
vim.lsp.stop_client(client_id)
vim.wait(5000, function() return vim.lsp.get_client_by_id(client_id) == nil end, 20)
finish(0)
