<?php

use Illuminate\Database\Migrations\Migration;
use Illuminate\Database\Schema\Blueprint;
use Illuminate\Support\Facades\Schema;

// The `context` extension: each page load's latest readable context (masked JSON entries) and its rev, beside
// its manifest, so whichever worker runs the conversation's next step shows it to the model.
return new class extends Migration
{
    public function up(): void
    {
        Schema::table('toolmark_pages', function (Blueprint $table) {
            $table->json('context')->nullable(); // [{name, description, value}]
            $table->unsignedBigInteger('context_rev')->nullable();
        });
    }

    public function down(): void
    {
        Schema::table('toolmark_pages', function (Blueprint $table) {
            $table->dropColumn(['context', 'context_rev']);
        });
    }
};
