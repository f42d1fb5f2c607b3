-- Neovim 0.7+ headless client for test/lsp/neovim_context.test: opens a caller whose helpers
-- live in another file of the project and in an installed package (the environment comes
-- from VIRTUAL_ENV), writes the diagnostics shown in its buffer, then opens the project helper,
-- edits it (unsaved) to restore grad mode, and waits for the caller's diagnostic through it to
-- go while the one through the installed package stays. On a failure it writes `FAIL: why` and
-- exits non-zero.
local here = vim.fn.fnamemodify(debug.getinfo(1, "S").source:sub(2), ":h")
local nvim = dofile(here .. "/nvim_client.lua")

local callerBuffer, client_id = nvim.open_with_server(os.getenv("GRADLINT_NVIM_CALLER"))
if not client_id then return end

if not nvim.wait_for(function() return #vim.diagnostic.get(callerBuffer) >= 2 end) then
  nvim.dump(callerBuffer, "partial")
  return nvim.fail("not both diagnostics within 90 s")
end
nvim.dump(callerBuffer, "open")

local helperBuffer = nvim.open(os.getenv("GRADLINT_NVIM_HELPER"), client_id)
-- Line 4 of the helper: `    torch.set_grad_enabled(False)`.
if not nvim.false_to_true(helperBuffer, 4) then return end

if not nvim.wait_for(function() return #vim.diagnostic.get(callerBuffer) == 1 end) then
  nvim.dump(callerBuffer, "stale")
  return nvim.fail("the caller was not re-checked within 90 s")
end
nvim.dump(callerBuffer, "edited")
nvim.stop(client_id)
