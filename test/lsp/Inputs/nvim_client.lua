-- Shared part of the headless Neovim clients (nvim_init.lua, nvim_context.lua): the output file,
-- failure handling, starting `gradlint server` through Neovim's built-in LSP client, and writing
-- a buffer's diagnostics. Loaded with dofile() from the script beside it.
local M = {}
local out = assert(io.open(os.getenv("GRADLINT_NVIM_OUT"), "w"))

function M.write(line)
  out:write(line, "\n")
  out:flush()
end

function M.finish(status)
  out:close()
  vim.cmd(status == 0 and "qa!" or "cq!")
end

function M.fail(why)
  M.write("FAIL: " .. why)
  M.finish(1)
end

-- Opens PATH in a buffer and starts the server rooted at its folder; returns the buffer and the
-- client id (nil after writing a failure).
function M.open_with_server(path)
  vim.cmd("edit " .. vim.fn.fnameescape(path))
  local bufnr = vim.api.nvim_get_current_buf()
  local client_id = vim.lsp.start_client({
    name = "gradlint",
    cmd = { os.getenv("GRADLINT_BIN"), "server" },
    root_dir = vim.fn.fnamemodify(path, ":p:h"),
    on_exit = function(code) if code ~= 0 then M.write("server exited with " .. code) end end,
  })
  if not client_id then return M.fail("vim.lsp.start_client") end
  vim.lsp.buf_attach_client(bufnr, client_id)
  return bufnr, client_id
end

-- Opens PATH in another buffer attached to the same server.
function M.open(path, client_id)
  vim.cmd("edit " .. vim.fn.fnameescape(path))
  local bufnr = vim.api.nvim_get_current_buf()
  vim.lsp.buf_attach_client(bufnr, client_id)
  return bufnr
end

-- Writes BUFNR's diagnostics, one line each: TAG CODE LINE:COL[-END_LINE:END_COL] MESSAGE.
-- Neovim's diagnostics have 0-based lines and byte columns (converted from the server's UTF-16).
function M.dump(bufnr, tag, with_end)
  for _, d in ipairs(vim.diagnostic.get(bufnr)) do
    local code = d.code or (d.user_data and d.user_data.lsp and d.user_data.lsp.code)
    local range = string.format("%d:%d", d.lnum, d.col)
    if with_end then range = range .. string.format("-%d:%d", d.end_lnum, d.end_col) end
    M.write(string.format("%s %s %s %s", tag, tostring(code), range, d.message))
  end
end

-- Replaces the first `False` on ROW (0-based) of BUFNR with `True`; false after a failure.
function M.false_to_true(bufnr, row)
  local text = vim.api.nvim_buf_get_lines(bufnr, row, row + 1, true)[1]
  local col = text:find("False", 1, true)
  if not col then
    M.fail("no `False` on line " .. row)
    return false
  end
  vim.api.nvim_buf_set_text(bufnr, row, col - 1, row, col + 4, { "True" })
  return true
end

-- Every wait is bounded.
function M.wait_for(predicate)
  return vim.wait(90000, predicate, 20)
end

function M.stop(client_id)
  vim.lsp.stop_client(client_id)
  vim.wait(5000, function() return vim.lsp.get_client_by_id(client_id) == nil end, 20)
  M.finish(0)
end

return M
