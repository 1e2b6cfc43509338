-- Neovim: start hlo-lsp for every buffer of filetype `hlo` (ftdetect/hlo.vim decides
-- which files those are). Set vim.g.hlo_lsp_autostart = false to configure it yourself.
if vim.g.loaded_hlo_lsp then return end
vim.g.loaded_hlo_lsp = true

local group = vim.api.nvim_create_augroup('hlo_lsp', { clear = true })
vim.api.nvim_create_autocmd('FileType', {
  group = group,
  pattern = 'hlo',
  callback = function(args)
    if vim.g.hlo_lsp_autostart == false then return end
    require('hlo').start(args.buf)
  end,
})

-- Code lenses whose commands the client must handle itself (see lua/hlo/init.lua).
-- Also the replay code actions: their answer is a run id, the report comes later; and
-- "Find the pass that changed the result" (hlo.bisect), whose answer fills the quickfix list.
for _, name in ipairs({ 'hlo.previousPass', 'hlo.nextPass', 'hlo.diff', 'hlo.moduleFiles', 'hlo.replay', 'hlo.compare',
  'hlo.bisect' }) do
  vim.lsp.commands[name] = vim.lsp.commands[name] or function(command, ctx)
    require('hlo').lens_command(command, ctx)
  end
end
