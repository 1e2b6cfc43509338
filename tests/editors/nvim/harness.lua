-- Headless Neovim test helpers (Neovim 0.7.2 and newer). The test script is the init file;
-- each check appends a JSON line to $LSP_OUT and the process exits with :cquit <failures>.
local H = { failures = 0 }
local fh = assert(io.open(assert(os.getenv('LSP_OUT'), 'set LSP_OUT'), 'w'))

function H.log(tbl)
  fh:write(vim.fn.json_encode(tbl), '\n')
  fh:flush()
end

function H.check(name, ok, detail)
  if not ok then H.failures = H.failures + 1 end
  H.log({ check = name, ok = ok and true or false, detail = detail })
end

function H.buf_clients(bufnr)
  if vim.lsp.get_clients then return vim.lsp.get_clients({ bufnr = bufnr }) end
  return vim.tbl_values(vim.lsp.buf_get_clients(bufnr))
end

function H.wait_attached(bufnr, timeout)
  local client
  vim.wait(timeout or 10000, function()
    for _, c in ipairs(H.buf_clients(bufnr)) do
      if c.initialized then client = c return true end
    end
    return false
  end, 50)
  return client
end

-- First client's result, or nil and the error.
function H.request(bufnr, method, params, timeout)
  local resp, err = vim.lsp.buf_request_sync(bufnr, method, params, timeout or 10000)
  if not resp then return nil, err or 'timeout' end
  for _, r in pairs(resp) do
    if r.error or r.err then return nil, r.error or r.err end
    return r.result
  end
  return nil, 'no response'
end

function H.pos(bufnr, line, character)
  return { textDocument = { uri = vim.uri_from_bufnr(bufnr) },
           position = { line = line, character = character } }
end

-- 0-based column of the first PATTERN (plain) on 1-based line LNUM of bufnr.
function H.col(bufnr, lnum, pattern)
  local text = vim.api.nvim_buf_get_lines(bufnr, lnum - 1, lnum, false)[1] or ''
  local s = text:find(pattern, 1, true)
  return s and s - 1 or -1
end

function H.run(fn)
  local ok, err = xpcall(fn, debug.traceback)
  if not ok then
    H.failures = H.failures + 1
    H.log({ check = 'harness', ok = false, detail = err })
  end
  H.log({ summary = true, failures = H.failures })
  fh:close()
  local all = vim.lsp.get_clients or vim.lsp.get_active_clients
  for _, c in ipairs(all()) do c.stop() end
  vim.wait(2000, function() return #all() == 0 end, 50)
  vim.cmd('cquit! ' .. H.failures)
end

return H
