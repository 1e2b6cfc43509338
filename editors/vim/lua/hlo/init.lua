-- Neovim client for hlo-lsp. plugin/hlo.lua calls M.start() from a FileType autocmd.
-- Works on Neovim 0.7 (vim.lsp.start_client + buf_attach_client) and uses
-- vim.lsp.start on 0.8+. Settings (all optional):
--   vim.g.hlo_lsp_path       executable (default $HLO_LSP, else 'hlo-lsp' on PATH)
--   vim.g.hlo_lsp_args       extra arguments (list)
--   vim.g.hlo_lsp_autostart  false: don't start on the hlo filetype (lspconfig users)
--   vim.g.hlo_verify         the server's hlo.verify setting: 'auto' (default), 'off',
--                            or XLA verifier option names ({'layout_sensitive'} or a
--                            comma list), sent as initializationOptions
local M = { clients = {} }

local NAME = 'hlo-lsp'
local METHOD_NOT_FOUND = -32601

function M.executable()
  local path = vim.g.hlo_lsp_path
  if path and path ~= '' then return vim.fn.expand(path) end
  local env = os.getenv('HLO_LSP')
  return (env and env ~= '') and env or 'hlo-lsp'
end

function M.cmd()
  local cmd = { M.executable() }
  for _, a in ipairs(vim.g.hlo_lsp_args or {}) do cmd[#cmd + 1] = a end
  return cmd
end

-- The nearest folder holding .git, else the file's own folder (a dump folder has no markers).
function M.root(bufnr)
  local name = vim.api.nvim_buf_get_name(bufnr)
  local dir = name ~= '' and vim.fn.fnamemodify(name, ':p:h') or vim.fn.getcwd()
  local git = vim.fn.finddir('.git', dir .. ';')
  if git ~= '' then return vim.fn.fnamemodify(git, ':p:h:h') end
  return dir
end

local warned = false
function M.start(bufnr)
  bufnr = (bufnr == nil or bufnr == 0) and vim.api.nvim_get_current_buf() or bufnr
  local cmd = M.cmd()
  if vim.fn.executable(cmd[1]) ~= 1 then
    if not warned then
      warned = true
      vim.notify('hlo-lsp: ' .. cmd[1] .. ' not found; set g:hlo_lsp_path', vim.log.levels.WARN)
    end
    return nil
  end
  local root = M.root(bufnr)
  local config = {
    name = NAME,
    cmd = cmd,
    root_dir = root,
    workspace_folders = { { uri = vim.uri_from_fname(root), name = root } },
    flags = { debounce_text_changes = 150 },
  }
  if vim.g.hlo_verify ~= nil then config.init_options = { verify = vim.g.hlo_verify } end
  if vim.lsp.start then -- 0.8+: reuses a client with the same name and root
    return vim.lsp.start(config, { bufnr = bufnr })
  end
  local id = M.clients[root]
  if id and (not vim.lsp.get_client_by_id(id) or vim.lsp.client_is_stopped(id)) then id = nil end
  if not id then
    id = vim.lsp.start_client(config)
    M.clients[root] = id
  end
  if id then vim.lsp.buf_attach_client(bufnr, id) end
  return id
end

-- The hlo-lsp client attached to bufnr (0.7 .. 0.11).
function M.client(bufnr)
  bufnr = (bufnr == nil or bufnr == 0) and vim.api.nvim_get_current_buf() or bufnr
  local clients = vim.lsp.get_clients and vim.lsp.get_clients({ bufnr = bufnr })
    or vim.tbl_values(vim.lsp.buf_get_clients(bufnr))
  for _, c in ipairs(clients) do
    if c.name == NAME and not c.is_stopped() then return c end
  end
  return nil
end

local function supports_command(client, command)
  local caps = client.server_capabilities or client.resolved_capabilities or {}
  local provider = caps.executeCommandProvider
  return type(provider) == 'table' and vim.tbl_contains(provider.commands or {}, command)
end

local function scratch(name, lines, filetype)
  vim.cmd('botright new')
  local buf = vim.api.nvim_get_current_buf()
  vim.bo[buf].buftype = 'nofile'
  vim.bo[buf].bufhidden = 'wipe'
  vim.bo[buf].swapfile = false
  pcall(vim.api.nvim_buf_set_name, buf, name)
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, lines)
  if filetype then vim.bo[buf].filetype = filetype end
  vim.bo[buf].modifiable = false
  return buf
end

local function split_lines(text)
  return vim.split(text or '', '\n', { plain = true })
end

local function show(title, value)
  if type(value) == 'string' then return scratch(title, split_lines(value)) end
  return scratch(title, split_lines(vim.inspect(value)))
end

-- Quickfix items from [{uri, range | line/col, name | stage ...}] results.
local function to_qf(results)
  local items = {}
  for _, r in ipairs(results or {}) do
    local loc = r.location or r
    local path = loc.uri and vim.uri_to_fname(loc.uri) or r.path
    local lnum, col = 1, 1
    if loc.range then
      lnum, col = loc.range.start.line + 1, loc.range.start.character + 1
    elseif r.line then
      lnum, col = r.line, r.col or 1
    end
    local text = r.stage and (r.stage .. (r.step and (' #' .. r.step) or ''))
      or table.concat(vim.tbl_filter(function(s) return s ~= nil end,
        { r.kind and tostring(r.kind) or nil, r.name }), ' ')
    if path then items[#items + 1] = { filename = path, lnum = lnum, col = col, text = text } end
  end
  return items
end

local function quickfix(title, items)
  vim.fn.setqflist({}, ' ', { title = title, items = items })
  vim.cmd('copen')
end

-- Synchronous custom request: result, or nil + 'unsupported' when the server lacks it.
local function request(client, method, params, bufnr, timeout)
  local resp, err = client.request_sync(method, params, timeout or 30000, bufnr)
  if not resp then return nil, err or 'timeout' end
  if resp.err then
    if resp.err.code == METHOD_NOT_FOUND then return nil, 'unsupported' end
    return nil, resp.err.message or vim.inspect(resp.err)
  end
  return resp.result
end

-- Whether the attached server found a GPU (initialize's experimental.gpu).
function M.gpu_available(bufnr)
  local client = M.client(bufnr)
  local caps = client and (client.server_capabilities or client.resolved_capabilities) or {}
  local gpu = type(caps.experimental) == 'table' and caps.experimental.gpu or nil
  return type(gpu) == 'table' and gpu.available == true
end

-- The hlo/replayResult request waiting for a run: {client, request id, run id}.
M.replay = nil

-- Waits (asynchronously) for the report of run ID and shows it through autoload's
-- hlo#ShowReplay: the scratch buffer and the NaN origin in the quickfix list.
local function show_replay(client, bufnr, result)
  local path = vim.api.nvim_buf_get_name(bufnr)
  local function show(r)
    if r == nil then r = vim.NIL end
    vim.fn['hlo#ShowReplay'](path, r)
  end
  if type(result) ~= 'table' or result.id == nil or result.summary ~= nil then return show(result) end
  local id = result.id
  local ok, rid = client.request('hlo/replayResult', { id = id }, function(err, report)
    local waiting = M.replay
    if not waiting or waiting.id ~= id or waiting.cancelled then return end
    M.replay = nil
    if err then
      show({ summary = 'hlo/replayResult: ' .. (err.message or vim.inspect(err)), outcome = 'failed' })
    else
      show(report)
    end
  end, bufnr)
  if ok then M.replay = { client = client, request = rid, id = id, show = show, bufnr = bufnr } end
end

-- :HloReplayCancel: $/cancelRequest for the waiting hlo/replayResult, which stops the
-- run (the server kills its child), then shows the run's report, which says
-- "cancelled" (Neovim drops the cancelled request's own answer). False when none waits.
function M.cancel_replay()
  local r = M.replay
  if not r then return false end
  r.cancelled = true
  M.replay = nil
  r.client.cancel_request(r.request)
  r.client.request('hlo/replayResult', { id = r.id }, function(err, final)
    r.show(final or { summary = 'replay cancelled: ' .. vim.inspect(err), outcome = 'cancelled' })
  end, r.bufnr)
  return true
end

-- Runs one of the contract's commands through the attached server. Returns false when
-- no hlo-lsp client is attached or it can't do this, so the caller falls back to the CLI.
function M.execute(command, args)
  local bufnr = vim.api.nvim_get_current_buf()
  local client = M.client(bufnr)
  if not client then return false end
  if command == 'hlo.convertToText' then
    local res, err = request(client, 'hlo/protoToText', { uri = args.uri }, bufnr)
    if err == 'unsupported' then return false end
    if not res then
      vim.notify('hlo/protoToText: ' .. tostring(err), vim.log.levels.ERROR)
      return true
    end
    local name = 'hlo-proto://' .. vim.uri_to_fname(args.uri):gsub('%.pb%.gz$', ''):gsub('%.pb$', '') .. '.txt'
    local buf = scratch(name, split_lines(res.text), 'hlo')
    if res.truncated then
      vim.notify('hlo-lsp: the converted text was truncated', vim.log.levels.WARN)
    end
    return buf ~= nil
  end
  if command == 'hlo.moduleFiles' then
    local res, err = request(client, 'hlo/moduleFiles', { uri = args.uri }, bufnr)
    if err == 'unsupported' then return false end
    if not res then
      vim.notify('hlo/moduleFiles: ' .. tostring(err), vim.log.levels.ERROR)
      return true
    end
    -- Stages are HLO modules: not the buffer assignment, LLVM IR, ... also listed.
    local hlo_kinds = { stage = true, pass = true, proto = true, snapshot = true }
    quickfix('HloStages', to_qf(vim.tbl_filter(function(f) return f.kind == nil or hlo_kinds[f.kind] end, res)))
    return true
  end
  if not supports_command(client, command) then return false end
  client.request('workspace/executeCommand', { command = command, arguments = { args } },
    function(err, result)
      if err then
        vim.notify(command .. ': ' .. (err.message or vim.inspect(err)), vim.log.levels.ERROR)
      elseif command == 'hlo.search' then
        quickfix('HloSearch ' .. args.query, to_qf(result))
      elseif command == 'hlo.replay' or command == 'hlo.compare' then
        show_replay(client, bufnr, result)
      elseif command == 'hlo.bisect' then
        vim.fn['hlo#ShowBisect'](result == nil and vim.NIL or result)
      elseif command == 'hlo.exportProto' then
        vim.notify('hlo.exportProto: ' .. vim.inspect(result))
      else
        show(command, result)
      end
    end, bufnr)
  return true
end

-- A server command, synchronously, for autoload/hlo.vim: {handled = true, result = ...},
-- or {handled = false} when no hlo-lsp client is attached or it lacks the command.
function M.run_command(command, args)
  local bufnr = vim.api.nvim_get_current_buf()
  local client = M.client(bufnr)
  if not client or not supports_command(client, command) then return { handled = false } end
  local res, err = request(client, 'workspace/executeCommand', { command = command, arguments = { args } }, bufnr, 120000)
  if err then vim.notify(command .. ': ' .. tostring(err), vim.log.levels.ERROR) end
  return { handled = true, result = res }
end

-- vim.lsp.commands handler: a code lens's command runs on the server and its answer
-- is shown (Neovim would otherwise drop it): the adjacent pass opens, a diff fills
-- the quickfix list, the module's files fill it too.
function M.lens_command(command, ctx)
  local client = vim.lsp.get_client_by_id(ctx.client_id)
  local args = (command.arguments or {})[1] or {}
  if not client then return end
  if command.command == 'hlo.moduleFiles' then
    vim.api.nvim_buf_call(ctx.bufnr, function() M.execute('hlo.moduleFiles', args) end)
    return
  end
  if command.command == 'hlo.bisect' then
    -- Each dump's run under the replay time limit.
    args.timeout = args.timeout or vim.g.hlo_replay_timeout
  end
  if command.command == 'hlo.replay' or command.command == 'hlo.compare' then
    -- A replay code action: with the time limit, and its report shown when it ends.
    args.timeout = args.timeout or vim.g.hlo_replay_timeout
    client.request('workspace/executeCommand', { command = command.command, arguments = { args } },
      function(err, result)
        if err then
          vim.notify(command.command .. ': ' .. (err.message or vim.inspect(err)), vim.log.levels.ERROR)
        else
          show_replay(client, ctx.bufnr, result)
        end
      end, ctx.bufnr)
    return
  end
  client.request('workspace/executeCommand', { command = command.command, arguments = command.arguments },
    function(err, result)
      if err then
        vim.notify(command.command .. ': ' .. (err.message or vim.inspect(err)), vim.log.levels.ERROR)
        return
      end
      if result == nil then result = vim.NIL end
      vim.fn['hlo#CommandResult'](command.command, args, result)
    end, ctx.bufnr)
end

return M
