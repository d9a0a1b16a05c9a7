<?php

// PSR-4 for App\ (app/), plus the guide's files that hold two classes each.
spl_autoload_register(function (string $class): void {
    $shared = [
        'App\\Models\\ConversationMessage' => 'Models/Conversation.php',
        'App\\Toolmark\\AgentModel' => 'Toolmark/AgentLoop.php',
        'App\\Jobs\\RunFollowUpTurn' => 'Jobs/ContinueAgentTurn.php',
        'App\\Database\\ImmediatePdo' => 'Database/ImmediateSqliteConnector.php',
    ];
    if (! str_starts_with($class, 'App\\')) {
        return;
    }
    $file = __DIR__.'/../app/'.($shared[$class] ?? str_replace('\\', '/', substr($class, 4)).'.php');
    if (is_file($file)) {
        require_once $file;
    }
});
