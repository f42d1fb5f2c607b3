-- Neovim 0.7+ headless client for test/lsp/neovim.test: starts `gradlint server` through the
-- built-in LSP client, opens a file with a leak, waits for the diagnostics and writes them
-- out, fixes the leak with a buffer edit, waits for the diagnostics to clear, and quits.
-- On a failure it writes `FAIL: why` and exits non-zero.
local here = vim.fn.fnamemodify(debug.getinfo(1, "S").source:sub(2), ":h")
local nvim = dofile(here .. "/nvim_client.lua")

local bufnr, client_id = nvim.open_with_server(os.getenv("GRADLINT_NVIM_FILE"))
if not client_id then return end

if not nvim.wait_for(function() return #vim.diagnostic.get(bufnr) > 0 end) then
  return nvim.fail("no diagnostics within 90 s")
end
nvim.dump(bufnr, "open", true)

-- Fix the leak: `set_grad_enabled(False)` -> `set_grad_enabled(True)` on the finding's line.
if not nvim.false_to_true(bufnr, vim.diagnostic.get(bufnr)[1].lnum) then return end

if not nvim.wait_for(function() return #vim.diagnostic.get(bufnr) == 0 end) then
  nvim.dump(bufnr, "stale", true)
  return nvim.fail("diagnostics not cleared within 90 s")
end
nvim.write("cleared")
nvim.stop(client_id)
