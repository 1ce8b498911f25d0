-- sup.nvim: commands for sup, the supervisor of AI coding agents in tmux.
-- See :help sup.
if vim.g.loaded_sup then
  return
end
vim.g.loaded_sup = 1

local function sup()
  return require("sup")
end

local function complete_targets(arglead)
  return sup().complete(arglead)
end

vim.api.nvim_create_user_command("Sup", function()
  sup().sessions_buffer()
end, { desc = "sup: the sessions; <CR> jumps to the pane" })

vim.api.nvim_create_user_command("SupTrigger", function(o)
  local target, reason = o.args:match("^(%S+)%s*(.*)$")
  sup().trigger(target, o.line1, o.line2, { force = o.bang, override_reason = reason })
end, {
  nargs = "+",
  range = true,
  bang = true,
  complete = complete_targets,
  desc = "sup: send the lines as a trigger to TARGET (! = force, with a reason)",
})

vim.api.nvim_create_user_command("SupQueue", function()
  sup().queue_select()
end, { desc = "sup: the stuck queue; pick one to jump to it" })

vim.api.nvim_create_user_command("SupAnswer", function(o)
  local target, choice = o.args:match("^(%S+)%s+(.+)$")
  if not target then
    return vim.notify("sup: usage: :SupAnswer {target} {choice}", vim.log.levels.ERROR)
  end
  sup().answer(target, choice)
end, { nargs = "+", complete = complete_targets, desc = "sup: answer TARGET's prompt with CHOICE" })
