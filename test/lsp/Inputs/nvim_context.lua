-- Neovim 0.7+ headless client for test/lsp/neovim_context.test: opens a caller whose helpers
-- live in another file of the project and in an installed package (the environment comes
-- from VIRTUAL_ENV), writes the diagnostics shown in its buffer, then opens the project helper,
-- edits it (unsaved) to restore grad mode, and waits for the caller's diagnostic through it to
-- go while the one through the installed package stays. Every wait is bounded; on a failure it
-- writes `FAIL: why` and exits non-zero.
local gradlint = os.getenv("GRADLINT_BIN")
local caller = os.getenv("GRADLINT_NVIM_CALLER")
local helper = os.getenv("GRADLINT_NVIM_HELPER")
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

vim.cmd("edit " .. vim.fn.fnameescape(caller))
local callerBuffer = vim.api.nvim_get_current_buf()
local client_id = vim.lsp.start_client({
  name = "gradlint",
  cmd = { gradlint, "server" },
  root_dir = vim.fn.fnamemodify(caller, ":p:h"),
  on_exit = function(code) if code ~= 0 then write("server exited with " .. code) end end,
})
if not client_id then return fail("vim.lsp.start_client") end
vim.lsp.buf_attach_client(callerBuffer, client_id)

local function dump(tag)
  for _, d in ipairs(vim.diagnostic.get(callerBuffer)) do
    local code = d.code or (d.user_data and d.user_data.lsp and d.user_data.lsp.code)
    write(string.format("%s %s %d:%d %s", tag, tostring(code), d.lnum, d.col, d.message))
  end
end

if not vim.wait(30000, function() return #vim.diagnostic.get(callerBuffer) >= 2 end, 20) then
  dump("partial")
  return fail("not both diagnostics within 30 s")
end
dump("open")

vim.cmd("edit " .. vim.fn.fnameescape(helper))
local helperBuffer = vim.api.nvim_get_current_buf()
vim.lsp.buf_attach_client(helperBuffer, client_id)
local row = 4 -- `    torch.set_grad_enabled(False)`
local text = vim.api.nvim_buf_get_lines(helperBuffer, row, row + 1, true)[1]
local col = text:find("False", 1, true)
if not col then return fail("no `False` on line " .. row .. " of the helper") end
vim.api.nvim_buf_set_text(helperBuffer, row, col - 1, row, col + 4, { "True" })

if not vim.wait(30000, function() return #vim.diagnostic.get(callerBuffer) == 1 end, 20) then
  dump("stale")
  return fail("the caller was not re-checked within 30 s")
end
dump("edited")
vim.lsp.stop_client(client_id)
vim.wait(5000, function() return vim.lsp.get_client_by_id(client_id) == nil end, 20)
finish(0)
